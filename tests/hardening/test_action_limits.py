"""Limits on every action: per address (any POST), per seat, holds per turn, rematch as a
create, IPv6 clients counted by their /64 — each against a real uvicorn process."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from app.rules import BOXES
from app.web.plumbing.limits import address_bucket
from tests.hardening.conftest import HTMX, csrf_token, log_length, run_async
from tests.live_server import Server


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _started(client: httpx.Client) -> tuple[str, str]:
    created = client.post("/api/v1/games", json={"name": "Ann"})
    assert created.status_code == 201, created.text
    game_id, token = created.json()["game"]["id"], created.json()["token"]
    assert client.post(f"/api/v1/games/{game_id}/start", headers=_auth(token)).status_code == 200
    return game_id, token


async def _click_holds(url: str, game_id: str, cookies: httpx.Cookies, token: str) -> list[int]:
    """Toggle die 1 a thousand times from the page, as fast as the server answers."""
    statuses = []
    headers = {**HTMX, "X-CSRF-Token": token}
    async with httpx.AsyncClient(base_url=url, cookies=cookies, timeout=30) as client:
        for click in range(1000):
            held = "true" if click % 2 == 0 else "false"
            answer = await client.post(
                f"/games/{game_id}/dice/0", data={"held": held}, headers=headers
            )
            statuses.append(answer.status_code)
    return statuses


def test_a_thousand_hold_clicks_in_one_turn_are_capped_and_the_log_holds_the_cap(
    start_server: Callable[..., Server],
) -> None:
    server = start_server(PENTA_MAX_HOLDS_PER_TURN="40")
    with httpx.Client(base_url=server.url, timeout=30) as browser:
        form = {"name": "Ann", "mode": "solo", "csrf_token": csrf_token(browser)}
        created = browser.post("/games", data=form)
        assert created.status_code == 303
        game_id = created.headers["location"].rsplit("/", 1)[1]
        token = csrf_token(browser)
        rolled = browser.post(f"/games/{game_id}/roll", headers={**HTMX, "X-CSRF-Token": token})
        assert rolled.status_code == 200
        statuses = run_async(_click_holds(server.url, game_id, browser.cookies, token))
        assert statuses[:40] == [200] * 40
        # Past the cap, every click that would change a hold is 429; the others (asking
        # for what already holds, since the refused clicks changed nothing) are 409 stale.
        assert set(statuses[40:]) == {409, 429}
        assert statuses[40:].count(429) == 480
        refused = browser.post(
            f"/games/{game_id}/dice/1",
            data={"held": "true"},
            headers={"X-CSRF-Token": token, "Accept-Language": "fr"},
        )
        assert refused.status_code == 429
        assert "trop de changements de dés gardés pendant ce tour" in refused.text
        assert log_length(server, game_id) == 1 + 40, "one roll and the 40 holds allowed"
        # The cap is per turn: the next turn may hold again.
        score = browser.post(
            f"/games/{game_id}/score",
            data={"box": "chance"},
            headers={**HTMX, "X-CSRF-Token": token},
        )
        assert score.status_code == 200
        browser.post(f"/games/{game_id}/roll", headers={**HTMX, "X-CSRF-Token": token})
        again = browser.post(
            f"/games/{game_id}/dice/0",
            data={"held": "true"},
            headers={**HTMX, "X-CSRF-Token": token},
        )
        assert again.status_code == 200


def test_every_action_is_limited_per_seat_and_per_address(
    start_server: Callable[..., Server],
) -> None:
    server = start_server(
        PENTA_ACTIONS_PER_MINUTE="30",
        PENTA_SEAT_ACTIONS_PER_MINUTE="10",
        PENTA_MAX_HOLDS_PER_TURN="0",
    )
    with httpx.Client(base_url=server.url, timeout=30) as client:
        game_id, token = _started(client)  # two actions from the address, one from the seat
        client.post(f"/api/v1/games/{game_id}/roll", json={}, headers=_auth(token))
        statuses = [
            client.post(
                f"/api/v1/games/{game_id}/roll", json={"hold": [n % 5]}, headers=_auth(token)
            ).status_code
            for n in range(10)
        ]
        refused = client.post(f"/api/v1/games/{game_id}/auto", headers=_auth(token))
        assert refused.status_code == 429
        assert refused.json()["error"]["message"].startswith("too many actions from your seat")
        assert 1 <= int(refused.headers["retry-after"]) <= 6
        assert 429 in statuses, "the seat's ten actions a minute are spent"
        # Another seat from the same address is still served until the address's 30 are spent.
        other_id, other = _started(client)
        assert (
            client.post(f"/api/v1/games/{other_id}/roll", json={}, headers=_auth(other)).status_code
            == 200
        )
        answers = [client.post("/api/v1/games/x/roll", json={}).status_code for _ in range(30)]
        assert answers[-1] == 429, "an address's actions are limited on any route"
        limited = client.post("/api/v1/games/nothing/anything", json={})
        assert limited.status_code == 429
        assert limited.json()["error"]["message"].startswith("too many requests from your address")
        assert client.get(f"/api/v1/games/{game_id}").status_code == 200, "reads are not limited"


def test_rematch_counts_as_a_create(start_server: Callable[..., Server]) -> None:
    server = start_server(
        PENTA_RATE_LIMIT_PER_MINUTE="3", PENTA_TESTING="true", PENTA_DICE_SCRIPT="6"
    )
    with httpx.Client(base_url=server.url, timeout=30) as browser:
        token = csrf_token(browser)
        form = {"name": "Ann", "mode": "solo", "csrf_token": token}
        created = browser.post("/games", data=form)
        game_id = created.headers["location"].rsplit("/", 1)[1]
        headers = {**HTMX, "X-CSRF-Token": token}
        for box in BOXES:  # every box once, in sheet order: the game is over
            browser.post(f"/games/{game_id}/roll", headers=headers)
            browser.post(f"/games/{game_id}/score", data={"box": box.value}, headers=headers)
        # A rematch is an offer now: its game waits, so it cannot be offered again in turn.
        # Offering again from the finished game is counted as a create all the same.
        rematches = []
        for _ in range(3):
            answer = browser.post(f"/games/{game_id}/rematch", data={"csrf_token": token})
            rematches.append(answer.status_code)
            if answer.status_code != 303:
                break
        assert rematches == [303, 303, 429], "one create and two offers spend the three a minute"


def test_ipv6_clients_are_counted_by_their_64_network(start_server: Callable[..., Server]) -> None:
    assert address_bucket("2001:db8:aa:bb:1::1") == address_bucket("2001:db8:aa:bb:ffff::9")
    assert address_bucket("2001:db8:aa:bb::1") != address_bucket("2001:db8:aa:bc::1")
    server = start_server(PENTA_RATE_LIMIT_PER_MINUTE="2", PENTA_TRUSTED_PROXIES="127.0.0.1")

    def create_from(address: str) -> int:
        headers = {"X-Forwarded-For": address}  # the client as the trusted proxy saw it
        return httpx.post(
            f"{server.url}/api/v1/games", json={"name": "Ann"}, headers=headers
        ).status_code

    one_network = [create_from(f"2001:db8:aa:bb::{n}") for n in range(1, 4)]
    assert one_network == [201, 201, 429], "one /64 is one client"
    assert create_from("2001:db8:aa:bc::1") == 201, "the next /64 is another"


@pytest.mark.parametrize("limit", ["0"])
def test_a_limit_of_zero_turns_the_action_limits_off(
    start_server: Callable[..., Server], limit: str
) -> None:
    server = start_server(PENTA_ACTIONS_PER_MINUTE=limit, PENTA_SEAT_ACTIONS_PER_MINUTE=limit)
    with httpx.Client(base_url=server.url, timeout=30) as client:
        answers = [client.post("/api/v1/games/x/roll", json={}).status_code for _ in range(700)]
    assert set(answers) == {404}
