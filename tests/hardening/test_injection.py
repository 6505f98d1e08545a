"""Player names carrying script and HTML are inert everywhere a name is shown.

Two players named with payloads play a whole game; the lobby, the game page, the htmx
fragments, the game-over standings, the statistics and review pages, the API's JSON and
the live events of a real server all show the names escaped (or, in JSON, as exact
strings), never as markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from tests.hardening.conftest import HTMX, csrf_token
from tests.live.test_live_updates import events
from tests.live_server import Server

HOST = "<script>alert(1)</script>"
GUEST = '"><img src=x onerror=alert(1)>'
PAYLOADS = (HOST, GUEST)


def assert_inert(html: str, *, shown: bool = True) -> None:
    """No payload as markup; each shown escaped (if the page shows names at all)."""
    for payload in PAYLOADS:
        assert payload not in html
        if shown:
            assert str(escape(payload)) in html
    assert "<script>alert" not in html
    assert "<img src=x" not in html


class Table:
    """A host, a guest and a spectator, each a browser, around one game made on the pages."""

    def __init__(self, make: Callable[[], TestClient]) -> None:
        self.host, self.guest, self.spectator = make(), make(), make()
        token = csrf_token(self.host)  # type: ignore[arg-type]
        created = self.host.post(
            "/games",
            data={"name": HOST, "mode": "friends", "csrf_token": token},
            follow_redirects=False,
        )
        self.game_id = created.headers["location"].removeprefix("/games/")
        joined = self.guest.post(
            f"/games/{self.game_id}/join",
            data={"name": GUEST, "csrf_token": csrf_token(self.guest)},  # type: ignore[arg-type]
            follow_redirects=False,
        )
        assert joined.status_code == 303

    def secret(self, browser: TestClient) -> str:
        secret = browser.cookies.get(f"penta_seat_{self.game_id}")
        assert secret
        return secret

    def start(self) -> None:
        started = self.host.post(
            f"/games/{self.game_id}/start",
            data={"csrf_token": csrf_token(self.host)},  # type: ignore[arg-type]
            follow_redirects=False,
        )
        assert started.status_code == 303

    def play_to_the_end(self) -> None:
        tokens = [self.secret(self.host), self.secret(self.guest)]
        api = self.spectator
        while True:
            game = api.get(f"/api/v1/games/{self.game_id}").json()
            if game["status"] == "finished":
                return
            auth = {"Authorization": f"Bearer {tokens[game['turn']]}"}
            if game["dice"] is None:
                api.post(f"/api/v1/games/{self.game_id}/roll", json={}, headers=auth)
            else:
                box = next(iter(game["options"]))
                api.post(f"/api/v1/games/{self.game_id}/score", json={"box": box}, headers=auth)


@pytest.fixture
def table(make_client: Callable[..., TestClient]) -> Table:
    first = make_client(dice_script="1,2,3,4,6,6,5")
    return Table(lambda: TestClient(first.app))


def test_names_are_escaped_in_the_lobby_game_fragments_and_standings(table: Table) -> None:
    for browser in (table.host, table.guest, table.spectator):
        assert_inert(browser.get(f"/games/{table.game_id}").text)
    table.start()
    for browser in (table.host, table.guest, table.spectator):
        assert_inert(browser.get(f"/games/{table.game_id}").text)
        fragments = browser.get(f"/games/{table.game_id}/board", headers=HTMX)
        assert_inert(fragments.text)
    rolled = table.host.post(
        f"/games/{table.game_id}/roll",
        data={"turn": "0", "roll": "0"},
        headers={**HTMX, "X-CSRF-Token": csrf_token(table.host)},  # type: ignore[arg-type]
    )
    assert rolled.status_code == 200
    assert_inert(rolled.text)
    table.play_to_the_end()
    over = table.spectator.get(f"/games/{table.game_id}")
    assert '<ol class="standings">' in over.text
    assert_inert(over.text)
    for path in ("/stats", f"/games/{table.game_id}/review"):
        page = table.spectator.get(path)
        assert page.status_code == 200, path
        assert_inert(page.text, shown=False)


def test_names_are_exact_strings_in_the_api_json(table: Table) -> None:
    answer = table.spectator.get(f"/api/v1/games/{table.game_id}")
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert [player["name"] for player in answer.json()["players"]] == [HOST, GUEST]


def test_names_are_escaped_in_the_live_events(start_server: Callable[..., Server]) -> None:
    server = start_server()
    with httpx.Client(base_url=server.url, timeout=10) as client:
        created = client.post("/api/v1/games", json={"name": HOST}).json()
        game_id, token = created["game"]["id"], created["token"]
        with (
            client.stream("GET", f"/games/{game_id}/events?page=lobby") as lobby,
            client.stream("GET", f"/api/v1/games/{game_id}/events") as api,
        ):
            lobby_events, api_events = events(lobby.iter_lines()), events(api.iter_lines())
            assert_inert(next(lobby_events)["data"], shown=False)
            next(api_events)
            client.post(f"/api/v1/games/{game_id}/players", json={"name": GUEST})
            joined = next(lobby_events)["data"]
            assert_inert(joined)
            names = [player["name"] for player in json.loads(next(api_events)["data"])["players"]]
            assert names == [HOST, GUEST]
        auth = {"Authorization": f"Bearer {token}"}
        client.post(f"/api/v1/games/{game_id}/start", headers=auth)
        with client.stream(
            "GET", f"/games/{game_id}/events", headers={"Last-Event-ID": "1"}
        ) as game:
            assert_inert(next(events(game.iter_lines()))["data"])
