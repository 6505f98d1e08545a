"""The verifiable dice on the pages: the commitment from the lobby on, the forms that carry
the browser's seed, the server seed and the check only at the end, and the rematch."""

from __future__ import annotations

import re
from collections.abc import Callable

from fastapi.testclient import TestClient

from app.service.games import GameService
from app.web.assets import ASSETS
from tests.fairness.play import play_to_the_end
from tests.web.helpers import act

SEED_FIELD = '<input type="hidden" name="client_seed" value="" data-client-seed>'


def csrf(client: TestClient) -> str:
    match = re.search(r'name="csrf_token" value="([0-9a-f]{64})"', client.get("/").text)
    assert match
    return match.group(1)


def friends_game(client: TestClient) -> str:
    response = client.post(
        "/games",
        data={"name": "Ann", "mode": "friends", "csrf_token": csrf(client)},
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    return response.headers["location"].removeprefix("/games/")


def test_the_forms_that_start_or_join_carry_a_seed_field_for_the_browser(
    make_client: Callable[..., TestClient],
) -> None:
    host = make_client()
    assert SEED_FIELD in host.get("/").text
    game_id = friends_game(host)
    lobby = host.get(f"/games/{game_id}").text
    start_form = lobby[lobby.index(f'action="/games/{game_id}/start"') :]
    assert SEED_FIELD in start_form[: start_form.index("</form>")]
    guest = TestClient(host.app, base_url="http://testserver")
    join_page = guest.get(f"/games/{game_id}").text
    join_form = join_page[join_page.index(f'action="/games/{game_id}/join"') :]
    assert SEED_FIELD in join_form[: join_form.index("</form>")]
    assert f'<script src="{ASSETS.url("js/fairness.js")}" defer></script>' in join_page
    assert "crypto.getRandomValues" in guest.get(ASSETS.url("js/fairness.js")).text


def test_the_lobby_shows_the_commitment_and_the_seeds_sent_by_the_forms(
    client: TestClient,
) -> None:
    game_id = friends_game(client)
    commitment = client.get(f"/api/v1/games/{game_id}").json()["fairness"]["commitment"]
    lobby = client.get(f"/games/{game_id}").text
    assert f'<code class="short" translate="no">{commitment[:12]}…</code>' in lobby
    assert f'<code translate="no">{commitment}</code>' in lobby
    assert "revealed when the game is over" in lobby
    assert "Check the dice" not in lobby

    guest = TestClient(client.app, base_url="http://testserver")
    joined = guest.post(
        f"/games/{game_id}/join",
        data={"name": "Bob", "client_seed": "bob-browser", "csrf_token": csrf(guest)},
        follow_redirects=False,
    )
    assert joined.status_code == 303
    third = TestClient(client.app, base_url="http://testserver")
    refused = third.post(
        f"/games/{game_id}/join",
        data={"name": "Cy", "client_seed": "é", "csrf_token": csrf(third)},
    )
    assert refused.status_code == 422
    assert "a client seed is 1 to 64 printable ASCII characters" in refused.text
    started = client.post(
        f"/games/{game_id}/start",
        data={"client_seed": "ann-browser", "csrf_token": csrf(client)},
        follow_redirects=False,
    )
    assert started.status_code == 303
    game = client.get(f"/api/v1/games/{game_id}").json()
    assert [seat["client_seed"] for seat in game["fairness"]["client_seeds"]] == [
        "ann-browser",
        "bob-browser",
    ]
    page = client.get(f"/games/{game_id}").text
    assert '<code translate="no">bob-browser</code>' in page


def test_the_check_appears_with_the_seed_once_the_game_is_over(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(computer_pace_seconds=3600)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id, ann = created["game"]["id"], created["token"]
    act(client, game_id, ann, "start")
    assert "Check the dice" not in client.get(f"/games/{game_id}").text
    game = play_to_the_end(client, game_id, {0: ann})
    page = client.get(f"/games/{game_id}").text
    seed = game["fairness"]["server_seed"]
    assert f'<code translate="no">{seed}</code>' in page
    assert f'data-fairness-check="/api/v1/games/{game_id}/log"' in page
    assert 'data-all-match="All {count} rolls match."' in page

    # A rematch is a new game: a new commitment from the offer on, the seeds at its start.
    rematch_id, ann_there = service.rematches.offer(game_id, ann)
    assert ann_there is not None
    rematch = client.get(f"/api/v1/games/{rematch_id}").json()["fairness"]
    assert rematch["verifiable"] is True
    assert rematch["commitment"] != game["fairness"]["commitment"]
    assert rematch["server_seed"] is None
    started = act(client, rematch_id, ann_there, "start", {"client_seed": "ann-again"})
    assert started["fairness"]["client_seeds"][0]["client_seed"] == "ann-again"


def test_a_game_with_scripted_dice_says_its_dice_cannot_be_checked(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(dice_script="1,2,3,4,5")
    game_id = friends_game(client)
    page = client.get(f"/games/{game_id}").text
    assert "These dice cannot be checked" in page
    assert "committed to its secret seed" not in page


def test_a_solo_game_from_the_home_page_takes_the_browsers_seed(client: TestClient) -> None:
    response = client.post(
        "/games",
        data={"name": "Ann", "client_seed": "ann-solo", "csrf_token": csrf(client)},
        follow_redirects=False,
    )
    game_id = response.headers["location"].removeprefix("/games/")
    game = client.get(f"/api/v1/games/{game_id}").json()
    assert game["status"] == "playing"
    assert game["fairness"]["client_seeds"] == [{"seat": 0, "client_seed": "ann-solo"}]


def test_a_bad_seed_on_the_home_page_creates_no_game(client: TestClient) -> None:
    engine = client.app.state.service.database.engine  # type: ignore[attr-defined]
    response = client.post(
        "/games", data={"name": "Ann", "client_seed": "x" * 65, "csrf_token": csrf(client)}
    )
    assert response.status_code == 422
    assert "a client seed is 1 to 64 printable ASCII characters" in response.text
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM games").scalar_one() == 0
