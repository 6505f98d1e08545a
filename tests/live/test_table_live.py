"""Around the table against a real server: presence from the open streams, the seat handed
to the computer and taken back by opening the game, reactions delivered live."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator

import httpx

from tests.live.test_live_updates import api, browser_for, create, events, post
from tests.live_server import Server


def friends(client: httpx.Client) -> tuple[str, str, str]:
    """A started game of Ann (host) and Bob: its id and their tokens."""
    game_id, ann = create(client)
    bob = client.post(f"/api/v1/games/{game_id}/players", json={"name": "Bob"}).json()["token"]
    post(client, f"/api/v1/games/{game_id}/start", ann)
    return game_id, ann, bob


def next_event(received: Iterator[dict[str, str]], kind: str) -> str:
    """The data of the next event of ``kind`` on a stream."""
    for event in received:
        if event.get("event") == kind:
            return event["data"]
    raise AssertionError(f"the stream ended before a {kind} event")


def presence(table: str) -> tuple[dict[int, str], int]:
    """Each person's seat's presence ("true"/"false") and the spectators, from a table event."""
    seats = {
        int(seat): present
        for seat, present in re.findall(r'data-seat="(\d)"\s+data-present="(\w+)"', table)
    }
    spectators = re.search(r'data-spectators="(\d+)"', table)
    return seats, int(spectators[1]) if spectators else 0


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_table_shows_who_has_the_game_open_and_counts_spectators(server: Server) -> None:
    with api(server) as client:
        game_id, ann, _bob = friends(client)
        watcher = browser_for(server, game_id, None)
        with watcher.stream("GET", f"/games/{game_id}/events?version=0") as watching:
            received = events(watching.iter_lines())
            assert presence(next_event(received, "table")) == ({0: "false", 1: "false"}, 1)
            with client.stream(
                "GET", f"/api/v1/games/{game_id}/events", headers=bearer(ann)
            ) as _ann_stream:
                assert presence(next_event(received, "table")) == ({0: "true", 1: "false"}, 1)
                second = browser_for(server, game_id, None)
                with second.stream("GET", f"/games/{game_id}/events") as _second_watcher:
                    assert presence(next_event(received, "table"))[1] == 2
                assert presence(next_event(received, "table"))[1] == 1
                second.close()
            # Ann's stream closed: her seat is away again, for everyone, at once.
            assert presence(next_event(received, "table")) == ({0: "false", 1: "false"}, 1)
        watcher.close()


def wait_until(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_a_seat_handed_to_the_computer_is_taken_back_by_opening_the_game(
    start_server: Callable[..., Server],
) -> None:
    server = start_server(PENTA_ABSENT_SECONDS="0.3", PENTA_COMPUTER_PACE_SECONDS="3600")
    with api(server) as client:
        game_id, ann, bob = friends(client)
        hand_over = f"/api/v1/games/{game_id}/stand-in"

        def stand_in() -> bool:
            game = client.get(f"/api/v1/games/{game_id}").json()
            return bool(game["players"][0]["stand_in"])

        with client.stream("GET", f"/api/v1/games/{game_id}/events", headers=bearer(ann)):
            time.sleep(0.4)  # had Ann been away, it would now be long enough
            refused = client.post(hand_over, json={"seat": 0}, headers=bearer(bob))
            assert refused.status_code == 409
            assert refused.json()["error"] == {
                "code": "present",
                "message": "that player has the game open",
            }
        assert wait_until(
            lambda: client.post(hand_over, json={"seat": 0}, headers=bearer(bob)).status_code == 200
        )
        assert stand_in()
        ann_page = browser_for(server, game_id, ann)
        with ann_page.stream("GET", f"/games/{game_id}/events") as opened:
            table = next_event(events(opened.iter_lines()), "table")
            assert "The computer plays for" not in table
            assert not stand_in()
        ann_page.close()
        # A bot takes its seat back the same way: by opening its stream.
        assert wait_until(
            lambda: client.post(hand_over, json={"seat": 0}, headers=bearer(bob)).status_code == 200
        )
        assert stand_in()
        with client.stream("GET", f"/api/v1/games/{game_id}/events", headers=bearer(ann)) as bot:
            next(events(bot.iter_lines()))
            assert not stand_in()


def test_a_reaction_reaches_every_open_page_and_is_not_stored(server: Server) -> None:
    with api(server) as client:
        game_id, ann, _bob = friends(client)
        version = client.get(f"/api/v1/games/{game_id}").json()["version"]
        watcher = browser_for(server, game_id, None)
        watcher.headers["Accept-Language"] = "fr"
        with watcher.stream("GET", f"/games/{game_id}/events?version={version}") as watching:
            received = events(watching.iter_lines())
            next_event(received, "table")
            sent = client.post(
                f"/api/v1/games/{game_id}/reactions", json={"reaction": "clap"}, headers=bearer(ann)
            )
            assert sent.status_code == 204
            reaction = next_event(received, "reaction")
        watcher.close()
        assert 'hx-swap-oob="beforeend:#reactions"' in reaction
        assert 'data-reaction="clap"' in reaction
        assert "<bdi>Ann</bdi>" in reaction
        # An icon drawn in the page (no emoji: a machine may have no font for it), and its
        # name in the page's language for screen readers.
        assert '<svg class="reaction-icon"' in reaction
        assert "Bravo" in reaction
        assert not any(ord(character) > 0x2FFF for character in reaction)
        assert client.get(f"/api/v1/games/{game_id}").json()["version"] == version


def test_a_seat_moved_to_another_device_is_no_longer_present_through_the_old_page(
    start_server: Callable[..., Server],
) -> None:
    # Ann's old page stays open after her seat moved: it now only watches, so it must not
    # keep her seat "present" (the others could never hand it to the computer).
    server = start_server(PENTA_ABSENT_SECONDS="0.3", PENTA_COMPUTER_PACE_SECONDS="3600")
    with api(server) as client:
        game_id, ann, bob = friends(client)
        hand_over = f"/api/v1/games/{game_id}/stand-in"
        old_page = browser_for(server, game_id, ann)
        with old_page.stream("GET", f"/games/{game_id}/events?version=0") as opened:
            received = events(opened.iter_lines())
            assert presence(next_event(received, "table")) == ({0: "true", 1: "false"}, 0)
            link = re.search(
                r'id="resume-link" readonly value="([^"]+)"', old_page.get(f"/games/{game_id}").text
            )
            assert link, "her page has the link"
            new_device = browser_for(server, game_id, None)
            moved = new_device.post(link.group(1), follow_redirects=False)
            assert moved.status_code == 303
            assert presence(next_event(received, "table")) == ({0: "false", 1: "false"}, 1)
            time.sleep(0.4)  # away long enough, though the old page is still open
            handed = client.post(hand_over, json={"seat": 0}, headers=bearer(bob))
            assert handed.status_code == 200, handed.text
            new_device.close()
        old_page.close()
