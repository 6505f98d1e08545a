"""Presence and reactions between real worker processes joined by the Redis bus: a player
whose stream is on one worker is present on the other (no hand-over to the computer), is
away there once it closes and the absence passes, and a reaction sent on one worker
reaches the pages open on the other. One pair of workers for all of it: CI's time is short."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx

from tests.bus.test_bus_across_processes import wait_for_bus
from tests.live.test_live_updates import api, browser_for, events
from tests.live.test_table_live import bearer, friends, next_event, presence, wait_until
from tests.live_server import Server


def test_presence_and_reactions_reach_across_workers(
    start_workers: Callable[..., list[Server]],
) -> None:
    # No periodic database check in the test's time; absence short enough to wait out.
    a, b = start_workers(
        2,
        PENTA_BUS_CHECK_SECONDS="600",
        PENTA_ABSENT_SECONDS="2",
        PENTA_COMPUTER_PACE_SECONDS="3600",
    )
    wait_for_bus(a, "up")
    wait_for_bus(b, "up")
    with api(b) as on_b, api(a) as on_a:
        game_id, ann, bob = friends(on_b)
        hand_over = f"/api/v1/games/{game_id}/stand-in"
        watcher_a = browser_for(a, game_id, None)
        watcher_b = browser_for(b, game_id, None)
        with (
            watcher_a.stream("GET", f"/games/{game_id}/events?version=0") as watching_a,
            watcher_b.stream("GET", f"/games/{game_id}/events?version=0") as watching_b,
        ):
            seen_a, seen_b = events(watching_a.iter_lines()), events(watching_b.iter_lines())
            next_event(seen_a, "table")
            # B's table counts A's spectator too, once A has told it.
            assert wait_until(lambda: presence(next_event(seen_b, "table"))[1] == 2)

            with on_a.stream("GET", f"/api/v1/games/{game_id}/events", headers=bearer(ann)):
                # Ann's stream is on A: B's page shows her present...
                assert wait_until(lambda: presence(next_event(seen_b, "table"))[0][0] == "true")
                time.sleep(2.2)  # had she been away, it would be long enough
                # ... and B refuses to hand her seat to the computer.
                refused = on_b.post(hand_over, json={"seat": 0}, headers=bearer(bob))
                assert refused.status_code == 409, refused.text
                assert refused.json()["error"]["code"] == "present"

                # A reaction sent on B reaches the page open on A.
                sent = on_b.post(
                    f"/api/v1/games/{game_id}/reactions",
                    json={"reaction": "gg"},
                    headers=bearer(ann),
                )
                assert sent.status_code == 204
                reaction = next_event(seen_a, "reaction")
                assert 'data-reaction="gg"' in reaction
                assert "<bdi>Ann</bdi>" in reaction

            # Her stream closed: away on B at once, and handed over once the absence passed.
            assert wait_until(lambda: presence(next_event(seen_b, "table"))[0][0] == "false")
            early = on_b.post(hand_over, json={"seat": 0}, headers=bearer(bob))
            assert early.status_code == 409
            assert early.json()["error"]["code"] == "not_away_long"
            assert wait_until(
                lambda: (
                    on_b.post(hand_over, json={"seat": 0}, headers=bearer(bob)).status_code == 200
                ),
            )
        watcher_a.close()
        watcher_b.close()
        game = on_a.get(f"/api/v1/games/{game_id}").json()
        assert game["players"][0]["stand_in"]
        assert httpx.get(f"{a.url}/healthz", timeout=5).json()["bus"] == "up"
