"""Races: the same action fired 20 times at once applies exactly once, round after round.

Two tabs or a double click send the same action with the same expectation (the API's
``version``, the page's ``turn`` and ``roll``); the server takes the write lock before it
reads, so exactly one request applies and the 19 others are refused as stale (409) against
a real uvicorn process. Holding a die is a set, not a toggle: the copies of a hold that has
applied change nothing, and are refused as stale too, so nothing is logged twice. Each
round checks the statuses, the log (exactly one more row) and that the winner's answer is
the game as it now is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.hardening.conftest import HTMX, csrf_token, log_length, run_async
from tests.live_server import Server

pytestmark = pytest.mark.slow

COPIES = 20


async def _fire(
    client: httpx.AsyncClient, path: str, **request: Any
) -> tuple[httpx.Response, list[httpx.Response]]:
    """POST the same request ``COPIES`` times at once: the one 200 and the others."""
    answers = await asyncio.gather(*(client.post(path, **request) for _ in range(COPIES)))
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [200] + [409] * (COPIES - 1), statuses
    winner = next(answer for answer in answers if answer.status_code == 200)
    return winner, [answer for answer in answers if answer is not winner]


def _limits() -> httpx.Limits:
    # A connection idle for the server's keep-alive (uvicorn's 5 s) is closed by the server,
    # and one reused just as that happens fails with a ReadError: the likely cause of the one
    # seen in CI on PostgreSQL under load, where a round's slowest copy can take that long
    # while the quick ones' connections wait. The client lets go first (a browser would retry
    # instead): these tests are about the copies, not about idle connections.
    return httpx.Limits(
        max_connections=COPIES, max_keepalive_connections=COPIES, keepalive_expiry=1.0
    )


async def _warm_up(client: httpx.AsyncClient) -> None:
    """Open every connection first, so that the copies leave together."""
    await asyncio.gather(*(client.get("/healthz") for _ in range(COPIES)))


def test_the_same_api_action_twenty_times_at_once_applies_once(
    start_server: Callable[..., Server],
) -> None:
    server = start_server()

    async def play() -> int:
        async with httpx.AsyncClient(base_url=server.url, limits=_limits(), timeout=30) as client:
            await _warm_up(client)
            created = (await client.post("/api/v1/games", json={"name": "Ann"})).json()
            game_id, auth = created["game"]["id"], {"Authorization": f"Bearer {created['token']}"}
            game = (await client.post(f"/api/v1/games/{game_id}/start", headers=auth)).json()
            rounds = 0
            while game["status"] == "playing":
                if game["dice"] is None or game["rolls_left"] == 2:
                    action, body = "roll", {"hold": [], "version": game["version"]}
                else:
                    box = max(game["options"], key=lambda name: game["options"][name])
                    action, body = "score", {"box": box, "version": game["version"]}
                logged = log_length(server, game_id)
                winner, losers = await _fire(
                    client, f"/api/v1/games/{game_id}/{action}", json=body, headers=auth
                )
                refusal = "finished" if winner.json()["status"] == "finished" else "stale"
                for loser in losers:
                    assert loser.json()["error"]["code"] == refusal
                assert winner.json()["version"] == game["version"] + 1
                assert log_length(server, game_id) == logged + 1
                game = (await client.get(f"/api/v1/games/{game_id}")).json()
                assert game == winner.json()
                rounds += 1
            assert sum(points is not None for points in game["players"][0]["boxes"].values()) == 13
            return rounds

    assert run_async(play()) == 39  # thirteen turns of two rolls and a score


def test_the_same_form_post_twenty_times_at_once_applies_once(
    start_server: Callable[..., Server],
) -> None:
    server = start_server()
    with httpx.Client(base_url=server.url) as browser:
        token = csrf_token(browser)
        created = browser.post("/games", data={"name": "Ann", "mode": "solo", "csrf_token": token})
        assert created.status_code == 303
        game_id = created.headers["location"].removeprefix("/games/")
        cookies = browser.cookies

    async def play() -> None:
        headers = {**HTMX, "X-CSRF-Token": token}
        async with httpx.AsyncClient(
            base_url=server.url, limits=_limits(), timeout=30, cookies=cookies
        ) as client:
            await _warm_up(client)
            for turn in range(5):
                for roll in range(2):
                    logged = log_length(server, game_id)
                    _, losers = await _fire(
                        client,
                        f"/games/{game_id}/roll",
                        data={"turn": str(turn), "roll": str(roll)},
                        headers=headers,
                    )
                    assert all('data-error-code="stale"' in loser.text for loser in losers)
                    assert log_length(server, game_id) == logged + 1
                    # A die held twenty times at once (a double click, two tabs) is held once.
                    die = (turn + roll) % 5
                    logged = log_length(server, game_id)
                    _, losers = await _fire(
                        client,
                        f"/games/{game_id}/dice/{die}",
                        data={"held": "true", "turn": str(turn), "roll": str(roll + 1)},
                        headers=headers,
                    )
                    assert all('data-error-code="stale"' in loser.text for loser in losers)
                    assert log_length(server, game_id) == logged + 1
                    game = (await client.get(f"/api/v1/games/{game_id}")).json()
                    assert game["held"][die] is True
                game = (await client.get(f"/api/v1/games/{game_id}")).json()
                box = next(iter(game["options"]))
                logged = log_length(server, game_id)
                winner, losers = await _fire(
                    client,
                    f"/games/{game_id}/score",
                    data={"box": box, "turn": str(turn), "roll": "2"},
                    headers=headers,
                )
                assert f"Round {turn + 2} of 13" in winner.text
                assert all('data-error-code="stale"' in loser.text for loser in losers)
                assert log_length(server, game_id) == logged + 1
            game = (await client.get(f"/api/v1/games/{game_id}")).json()
            assert game["round"] == 6
            assert sum(points is not None for points in game["players"][0]["boxes"].values()) == 5

    run_async(play())
