"""A player without an account: my games, profiles, ratings, the leaderboard, and moving the
player to another device (issue 28)."""

from __future__ import annotations

import re
from collections.abc import Callable

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.store.models import PersonRecord, RatingRecord
from app.web.deps import seat_cookie
from app.web.identity import PLAYER_COOKIE
from tests.scenarios import SACRIFICE_DICE

POLICIES = {
    "Ann": lambda options: max(options, key=options.get),  # the best box
    "Bob": lambda options: sorted(options, key=options.get)[len(options) // 2],  # a middling one
    "Cid": lambda options: min(options, key=options.get),  # the worst
}
"""How each player chooses: with a Penta every roll, Ann ends first, Bob second, Cid last."""


def browser(client: TestClient) -> tuple[TestClient, str]:
    """Another browser on the same server (its own cookies) and its CSRF token."""
    other = TestClient(client.app, base_url="http://testserver")
    token = re.search(r'data-csrf-token="([^"]+)"', other.get("/").text)
    assert token
    return other, token.group(1)


def new_player(client: TestClient, name: str) -> tuple[str, str]:
    """A bot's player through the API: its id and token."""
    answer = client.post("/api/v1/players", json={"name": name})
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert body["player"]["name"] == name
    return body["player"]["id"], body["token"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play_to_the_end(client: TestClient, game_id: str, seats: dict[int, tuple[str, str]]) -> dict:
    """Each seat rolls once a turn and records as its player's policy says."""
    game = client.get(f"/api/v1/games/{game_id}").json()
    while game["status"] == "playing":
        name, token = seats[game["turn"]]
        rolled = client.post(f"/api/v1/games/{game_id}/roll", json={}, headers=bearer(token))
        assert rolled.status_code == 200, rolled.text
        box = POLICIES[name](rolled.json()["options"])
        game = client.post(
            f"/api/v1/games/{game_id}/score", json={"box": box}, headers=bearer(token)
        ).json()
    assert game["status"] == "finished"
    return game


def public_game_of_three(client: TestClient, ann: TestClient, csrf: str, bots: dict) -> str:
    """Ann's browser hosts a public game; Bob and Cid (bots with player tokens) join; it is
    played to the end. The game's id."""
    made = ann.post(
        "/games",
        data={"name": "Ann", "mode": "friends", "public": "true", "csrf_token": csrf},
        follow_redirects=False,
    )
    assert made.status_code == 303
    game_id = made.headers["location"].removeprefix("/games/")
    seats = {0: ("Ann", ann.cookies[seat_cookie(game_id)])}
    for name in ("Bob", "Cid"):
        joined = client.post(
            f"/api/v1/games/{game_id}/players",
            json={"name": name},
            headers={"X-Player-Token": bots[name][1]},
        )
        assert joined.status_code == 201, joined.text
        seats[len(seats)] = (name, joined.json()["token"])
    started = client.post(f"/api/v1/games/{game_id}/start", json={}, headers=bearer(seats[0][1]))
    assert started.status_code == 200, started.text
    assert started.json()["turn_seconds"] == 60  # a public game always has a turn timer
    # Among strangers each viewer may mute a player's reactions: Ann may mute Bob and Cid.
    mutes = re.findall(r'data-mute-seat="(\d)"', ann.get(f"/games/{game_id}").text)
    assert mutes == ["1", "2"]
    play_to_the_end(client, game_id, seats)
    return game_id


def test_a_rated_public_game_of_three_moves_the_ratings_once_in_the_direction_of_the_result(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(dice_script="6", computer_pace_seconds=3600)  # a Penta every roll
    database = client.app.state.service.database
    ann, csrf = browser(client)
    bots = {name: new_player(client, name) for name in ("Bob", "Cid")}

    game_id = public_game_of_three(client, ann, csrf, bots)

    game = client.get(f"/api/v1/games/{game_id}").json()
    totals = {player["name"]: player["total"] for player in game["players"]}
    assert totals["Ann"] > totals["Bob"] > totals["Cid"]
    with database.reading() as session:
        rows = session.scalars(select(RatingRecord).where(RatingRecord.game_id == game_id)).all()
        people = {person.name: person for person in session.scalars(select(PersonRecord))}
    moved = {row.person_id: row for row in rows}
    assert len(rows) == 3  # once: one row a player, and one rated game each
    assert {person.rated_games for person in people.values()} == {1}
    ann_id = people["Ann"].id
    assert moved[ann_id].rank == 1
    assert moved[ann_id].mu > moved[ann_id].mu_before
    assert moved[people["Cid"].id].mu < moved[people["Cid"].id].mu_before
    assert all(row.sigma < row.sigma_before for row in rows)  # each game makes it surer
    assert people["Ann"].mu == moved[ann_id].mu

    # My games: Ann's browser (its cookie) sees the game, the win and a provisional rating.
    assert PLAYER_COOKIE in ann.cookies
    mine = ann.get("/me")
    assert mine.status_code == 200
    assert f'data-game="{game_id}"' in mine.text
    assert "Won" in mine.text
    shown = round(moved[ann_id].mu * 60)
    assert f'data-rating="{shown}"' in mine.text
    assert "±" in mine.text
    assert f'<dd data-figure="best">{totals["Ann"]}</dd>' in mine.text
    # Bob's bot reads its own through the API.
    bob = client.get("/api/v1/players/me", headers={"X-Player-Token": bots["Bob"][1]}).json()
    assert bob["totals"]["played"] == 1
    assert bob["totals"]["wins"] == 0
    assert bob["finished"][0]["rank"] == 2
    assert bob["rating"]["rated_games"] == 1
    # A stranger sees Ann's profile with the public game.
    stranger, _ = browser(client)
    profile = stranger.get(f"/players/{ann_id}")
    assert profile.status_code == 200
    assert f'data-game="{game_id}"' in profile.text
    assert f'data-rating="{shown}"' in profile.text

    # The leaderboard lists players from their fifth rated game on.
    assert client.get("/api/v1/leaderboard").json() == []
    for _ in range(4):
        public_game_of_three(client, ann, csrf, bots)
    leaders = client.get("/api/v1/leaderboard").json()
    assert [leader["player"]["name"] for leader in leaders] == ["Ann", "Bob", "Cid"]
    assert [leader["rating"]["rated_games"] for leader in leaders] == [5, 5, 5]
    assert leaders[0]["rating"]["plus_minus"] is None  # settled after five
    page = stranger.get("/leaderboard").text
    assert page.index("Ann") < page.index("Bob") < page.index("Cid")
    assert f'href="/players/{ann_id}"' in page
    with database.reading() as session:
        assert session.scalar(select(func.count()).select_from(RatingRecord)) == 15


def test_a_private_game_moves_no_rating_and_shows_only_to_its_own_players(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(dice_script=SACRIFICE_DICE, computer_pace_seconds=3600)
    ann_id, ann_token = new_player(client, "Ann")
    bob_id, bob_token = new_player(client, "Bob")
    made = client.post(
        "/api/v1/games", json={"name": "Ann"}, headers={"X-Player-Token": ann_token}
    ).json()
    game_id = made["game"]["id"]
    joined = client.post(
        f"/api/v1/games/{game_id}/players",
        json={"name": "Bob"},
        headers={"X-Player-Token": bob_token},
    ).json()
    client.post(f"/api/v1/games/{game_id}/start", json={}, headers=bearer(made["token"]))
    assert 'class="reaction-feed"' in client.get(f"/games/{game_id}").text
    assert "data-mutes" not in client.get(f"/games/{game_id}").text  # friends: no mutes
    play_to_the_end(client, game_id, {0: ("Ann", made["token"]), 1: ("Cid", joined["token"])})

    with client.app.state.service.database.reading() as session:
        assert session.scalar(select(func.count()).select_from(RatingRecord)) == 0
    mine = client.get("/api/v1/players/me", headers={"X-Player-Token": ann_token}).json()
    assert [seat["game_id"] for seat in mine["finished"]] == [game_id]
    assert mine["totals"]["played"] == 1
    assert mine["totals"]["wins"] == 1
    assert mine["rating"] == {
        "value": 1500,
        "plus_minus": 1000,
        "rated_games": 0,
        "mu": 25.0,
        "sigma": 25 / 3,
    }
    # A stranger sees neither the game nor its figures; Bob, who sat in it, sees it.
    stranger = client.get(f"/api/v1/players/{ann_id}").json()
    assert stranger["finished"] == []
    assert stranger["totals"]["played"] == 0
    assert game_id not in client.get(f"/players/{ann_id}").text
    bob_view = client.get(f"/api/v1/players/{ann_id}", headers={"X-Player-Token": bob_token})
    assert [seat["game_id"] for seat in bob_view.json()["finished"]] == [game_id]
    assert client.get(f"/api/v1/players/{bob_id}").json()["player"]["name"] == "Bob"


def test_the_player_moves_to_a_second_device_with_a_one_time_link_that_dies_when_used(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(computer_pace_seconds=3600)
    phone, csrf = browser(client)
    made = phone.post(
        "/games", data={"name": "Hana", "mode": "solo", "csrf_token": csrf}, follow_redirects=False
    )
    game_id = made.headers["location"].removeprefix("/games/")
    cookie = made.headers["set-cookie"]
    assert f"{PLAYER_COOKIE}=" in cookie
    assert "HttpOnly" in cookie
    assert "Path=/;" in cookie
    assert f'data-game="{game_id}"' in phone.get("/me").text
    # The home page knows the name the player last used.
    assert 'value="Hana"' in phone.get("/").text

    page = phone.post("/me/link", data={"csrf_token": csrf})
    link = re.search(
        r'id="player-link" readonly value="http://testserver/(players/link/[^"]+)"', page.text
    )
    assert link, page.text
    path = "/" + link.group(1)

    laptop, laptop_csrf = browser(client)
    assert "has not played yet" in laptop.get("/me").text
    look = laptop.get(path)  # a look (a chat app's preview) changes nothing
    assert look.status_code == 200
    assert "Hana" in look.text
    taken = laptop.post(path, data={"csrf_token": laptop_csrf}, follow_redirects=False)
    assert (taken.status_code, taken.headers["location"]) == (303, "/me")
    assert f'data-game="{game_id}"' in laptop.get("/me").text
    # The phone is nobody now, and the link is dead for anyone else.
    assert "has not played yet" in phone.get("/me").text
    third, third_csrf = browser(client)
    assert third.get(path).status_code == 403
    again = third.post(path, data={"csrf_token": third_csrf}, follow_redirects=False)
    assert again.status_code == 403
    assert "has not played yet" in third.get("/me").text
    # A link of a player nobody holds any more, or made without a player, is refused.
    assert laptop.post("/me/link", data={"csrf_token": laptop_csrf}).status_code == 200
    assert phone.post("/me/link", data={"csrf_token": csrf}).status_code == 403


def test_the_player_api_answers_bad_input_with_clear_errors(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client()
    assert client.post("/api/v1/players", json={"name": ""}).status_code == 422
    assert client.post("/api/v1/players", json={"name": "\u202eAnn"}).status_code == 422
    assert client.get("/api/v1/players/me").status_code == 403
    assert client.get("/api/v1/players/me", headers={"X-Player-Token": "x"}).status_code == 403
    assert client.get("/api/v1/players/nobody").status_code == 404
    assert client.get("/players/nobody").status_code == 404
    unknown = client.post(
        "/api/v1/games", json={"name": "Ann"}, headers={"X-Player-Token": "forged"}
    )
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (403, "no_player")
    _id, token = new_player(client, "Ann")
    renamed = client.patch(
        "/api/v1/players/me", json={"name": "Anna"}, headers={"X-Player-Token": token}
    )
    assert renamed.json()["player"]["name"] == "Anna"
    paths = client.get("/openapi.json").json()["paths"]
    for path in (
        "/api/v1/players",
        "/api/v1/players/me",
        "/api/v1/players/{person_id}",
        "/api/v1/leaderboard",
        "/api/v1/tables",
        "/api/v1/match",
    ):
        assert path in paths, path
