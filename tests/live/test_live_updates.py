"""Live updates against a real uvicorn process: server-sent events, resync, computer seats."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx

from tests.live_server import Server


def api(server: Server) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=10)


def create(client: httpx.Client, name: str = "Ann") -> tuple[str, str]:
    response = client.post("/api/v1/games", json={"name": name})
    assert response.status_code == 201
    return response.json()["game"]["id"], response.json()["token"]


def post(client: httpx.Client, path: str, token: str, body: Any = None) -> dict[str, Any]:
    response = client.post(path, json=body, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code in (200, 201), response.text
    result: dict[str, Any] = response.json()
    return result


def events(lines: Iterator[str]) -> Iterator[dict[str, str]]:
    """Parse a server-sent event stream into events with their fields."""
    event: dict[str, str] = {}
    for line in lines:
        if line == "":
            if "data" in event:
                yield event
            event = {}
        elif not line.startswith(":"):
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            event[field] = f"{event[field]}\n{value}" if field in event else value


def test_every_change_reaches_the_api_stream_with_its_version(server: Server) -> None:
    with api(server) as client:
        game_id, token = create(client)
        with client.stream("GET", f"/api/v1/games/{game_id}/events") as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            received = events(stream.iter_lines())
            first = next(received)
            assert (first["event"], first["id"]) == ("game", "1")
            started = post(client, f"/api/v1/games/{game_id}/start", token)
            update = next(received)
            assert update["id"] == str(started["version"])
            assert json.loads(update["data"])["status"] == "playing"
            rolled = post(client, f"/api/v1/games/{game_id}/roll", token, {"hold": []})
            update = next(received)
            assert json.loads(update["data"])["dice"] == rolled["dice"]


def test_a_reconnecting_page_resyncs_from_its_last_event_id(server: Server) -> None:
    with api(server) as client:
        game_id, token = create(client)
        post(client, f"/api/v1/games/{game_id}/start", token)
        rolled = post(client, f"/api/v1/games/{game_id}/roll", token, {"hold": []})
        headers = {"Last-Event-ID": str(rolled["version"] - 1), "Accept-Encoding": "gzip"}
        with client.stream("GET", f"/games/{game_id}/events", headers=headers) as stream:
            # Never gzipped (a stream is not buffered), though pages are (test_compression).
            assert "content-encoding" not in stream.headers
            update = next(events(stream.iter_lines()))
        assert update["event"] == "update"
        assert update["id"] == str(rolled["version"])
        assert 'id="dice-tray"' in update["data"]
        assert 'hx-swap-oob="true"' in update["data"]
        assert f'data-value="{rolled["dice"][0]}"' in update["data"]
        # The spectator reads the one rendering every reader of the version shares: the
        # mover's controls are in it hidden, marked with the mover's seat for that page to show.
        assert '<div class="tray-actions" data-only-seat="0" hidden>' in update["data"]
    seat = browser_for(server, game_id, token)
    with seat.stream("GET", f"/games/{game_id}/events", headers=headers) as stream:
        assert next(events(stream.iter_lines()))["data"] == update["data"]
    seat.close()


def test_a_computer_seat_finishes_the_game_by_itself(start_server: Any) -> None:
    server = start_server(PENTA_COMPUTER_PACE_SECONDS="0.01")
    with api(server) as client:
        game_id, token = create(client)
        post(client, f"/api/v1/games/{game_id}/computers", token)
        post(client, f"/api/v1/games/{game_id}/start", token)
        with client.stream("GET", f"/api/v1/games/{game_id}/events") as stream:
            for event in events(stream.iter_lines()):
                game = json.loads(event["data"])
                if game["status"] == "finished":
                    break
                if game["turn"] == 0 and game["dice"] is None:
                    post(client, f"/api/v1/games/{game_id}/roll", token, {"hold": []})
                elif game["turn"] == 0 and game["options"]:
                    box = next(iter(game["options"]))
                    post(client, f"/api/v1/games/{game_id}/score", token, {"box": box})
        computer = game["players"][1]
        assert all(points is not None for points in computer["boxes"].values())
        assert computer["total"] > 0


def browser_for(server: Server, game_id: str, token: str | None) -> httpx.Client:
    """A cookie-keeping client holding ``token``'s seat (None: a spectator), with its CSRF."""
    browser = httpx.Client(base_url=server.url, timeout=10)
    page = browser.get("/").text
    csrf = page.split('name="csrf_token" value="')[1].split('"')[0]
    browser.headers.update({"X-CSRF-Token": csrf, "HX-Request": "true"})
    if token:  # the seat cookie, as the browser that created or joined the game holds it
        browser.cookies.set(f"penta_seat_{game_id}", token, path=f"/games/{game_id}")
    return browser


def test_hints_reach_only_the_seat_that_asked(server: Server) -> None:
    with api(server) as client:
        game_id, ann_token = create(client)
        joined = client.post(f"/api/v1/games/{game_id}/players", json={"name": "Bob"})
        bob_token = joined.json()["token"]
        post(client, f"/api/v1/games/{game_id}/start", ann_token)
    ann = browser_for(server, game_id, ann_token)
    bob = browser_for(server, game_id, bob_token)
    watcher = browser_for(server, game_id, None)
    assert ann.post(f"/games/{game_id}/hints", data={"enabled": "true"}).status_code == 200
    assert ann.post(f"/games/{game_id}/roll", data={"turn": "0", "roll": "0"}).status_code == 200
    # Ann's stream: the board every reader shares, then her own hints, apart.
    with ann.stream("GET", f"/games/{game_id}/events?version=0") as stream:
        received = events(stream.iter_lines())
        update, hints = next(received), next(received)
    assert update["event"] == "update"
    assert "hint-box" not in update["data"]
    assert (hints["event"], hints["id"]) == ("hints", update["id"])
    assert 'class="hint-boxes"' in hints["data"]
    version = int(update["id"])
    with (
        bob.stream("GET", f"/games/{game_id}/events?version=0") as bob_stream,
        watcher.stream("GET", f"/games/{game_id}/events?version=0") as watcher_stream,
    ):
        others = [events(bob_stream.iter_lines()), events(watcher_stream.iter_lines())]
        for received in others:
            assert next(received)["data"] == update["data"], "one rendering for every reader"
        hold = {"turn": "0", "roll": "1", "held": "true"}
        assert ann.post(f"/games/{game_id}/dice/0", data=hold).status_code == 200
        for received in others:
            # The next event of the game is the next version's change: no hints between
            # (presence, the table's own event, may come as the readers arrive).
            after = next(event for event in received if event["event"] != "table")
            assert (after["event"], after["id"]) == ("change", str(version + 1))
            assert "hint-box" not in after["data"]
            assert "Expected final total" not in after["data"]
    for browser in (ann, bob, watcher):
        browser.close()


def open_streams(client: httpx.Client) -> int:
    count: int = client.get("/healthz").json()["live_streams"]
    return count


def test_closing_a_page_frees_its_stream(server: Server) -> None:
    with api(server) as client:
        game_id, _token = create(client)
        assert open_streams(client) == 0
        with client.stream("GET", f"/games/{game_id}/events") as stream:
            received = events(stream.iter_lines())  # kept: dropping it would close the stream
            next(received)
            assert open_streams(client) == 1
        for _ in range(100):  # the server notices the closed connection within moments
            if open_streams(client) == 0:
                break
            time.sleep(0.05)
        assert open_streams(client) == 0
