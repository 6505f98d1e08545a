"""Counts that guard the live path's design (issue 25): a version of a game in play is
rendered once per language however many seats and spectators watch; a reader who saw the
version before gets only what changed; every reader sees every version, in order.

The app is served by uvicorn in this process, so that its renderings can be counted."""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
import uvicorn

from app.rules import LOWER_BOXES, UPPER_BOXES
from app.settings import Settings
from app.store.migrate import upgrade
from app.web.factory import create_app
from app.web.live import LiveViews, RenderingKey
from tests.web.helpers import auth

GAME_EVENTS = ("update", "change")


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn on a loopback port, in a thread of this process."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def served(make_settings: Callable[..., Settings]) -> Iterator[tuple[str, Any]]:
    settings = make_settings()
    app: Any = create_app(settings)
    upgrade(settings.resolved_database_url)
    with serving(app) as url:
        yield url, app
    app.state.service.database.dispose()


class Reader:
    """One page's event stream: the game's events it got, in the order they came."""

    def __init__(self, client: httpx.AsyncClient, game_id: str, headers: dict[str, str]) -> None:
        self.client = client
        self.game_id = game_id
        self.headers = headers
        self.events: list[tuple[str, int, str]] = []  # (event, id, data)
        self.arrived = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def open(self, version: int) -> None:
        self.task = asyncio.create_task(self._read(version))
        await self.until(version)

    async def _read(self, version: int) -> None:
        path = f"/games/{self.game_id}/events?version={version - 1}"
        async with self.client.stream("GET", path, headers=self.headers) as stream:
            fields: dict[str, str] = {}
            async for line in stream.aiter_lines():
                if line == "":
                    if fields.get("event") in GAME_EVENTS:
                        self.events.append((fields["event"], int(fields["id"]), fields["data"]))
                        self.arrived.set()
                    fields = {}
                elif not line.startswith(":"):
                    name, _, value = line.partition(":")
                    fields[name] = value.removeprefix(" ")

    async def until(self, version: int) -> None:
        async def arrived() -> None:
            while not self.events or self.events[-1][1] < version:
                self.arrived.clear()
                await self.arrived.wait()

        await asyncio.wait_for(arrived(), 10)

    async def close(self) -> None:
        assert self.task is not None
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


async def page_client(url: str, game_id: str, token: str) -> httpx.AsyncClient:
    """A browser holding ``token``'s seat, with its CSRF token, as its page's forms post."""
    browser = httpx.AsyncClient(base_url=url, timeout=10)
    page = (await browser.get("/")).text
    csrf = page.split('name="csrf_token" value="')[1].split('"')[0]
    browser.headers.update({"X-CSRF-Token": csrf, "HX-Request": "true"})
    browser.cookies.set(f"penta_seat_{game_id}", token, path=f"/games/{game_id}")
    return browser


async def hold(browser: httpx.AsyncClient, game_id: str, held: bool) -> int:
    """Ann holds (or releases) her first die after her first roll: the new version."""
    form = {"turn": "0", "roll": "1", "held": "true" if held else "false"}
    answer = await browser.post(f"/games/{game_id}/dice/0", data=form)
    assert answer.status_code == 200, answer.text
    return int(answer.text.split('data-version="')[1].split('"')[0])


def four_players(client: httpx.Client) -> tuple[str, list[str], int]:
    """A started game of four people: its id, their tokens, its version."""
    created = client.post("/api/v1/games", json={"name": "Ann"})
    game_id, tokens = created.json()["game"]["id"], [created.json()["token"]]
    for name in ("Bob", "Cy", "Di"):
        joined = client.post(f"/api/v1/games/{game_id}/players", json={"name": name})
        tokens.append(joined.json()["token"])
    started = client.post(f"/api/v1/games/{game_id}/start", headers=auth(tokens[0]))
    assert started.status_code == 200, started.text
    return game_id, tokens, started.json()["version"]


def test_a_version_is_rendered_once_per_language_and_a_hold_sends_only_the_dice(
    served: tuple[str, Any],
) -> None:
    url, app = served
    live: LiveViews = app.state.live_views
    with httpx.Client(base_url=url, timeout=10) as client:
        game_id, tokens, version = four_players(client)

    async def scenario() -> None:
        async with httpx.AsyncClient(base_url=url, timeout=10) as browsers:
            seats = [
                Reader(browsers, game_id, {"Cookie": f"penta_seat_{game_id}={token}"})
                for token in tokens
            ]
            spectators = [
                Reader(browsers, game_id, {"Accept-Language": "en"}),
                Reader(browsers, game_id, {"Accept-Language": "fr"}),
            ]
            readers = [*seats, *spectators]
            for reader in readers:
                await reader.open(version)
            made = live.made["game"]
            rolled = await browsers.post(
                f"/api/v1/games/{game_id}/roll", json={"hold": []}, headers=auth(tokens[0])
            )
            assert rolled.status_code == 200
            for reader in readers:
                await reader.until(version + 1)
            # Six readers, two languages: two renderings of the roll, not one per reader (the
            # presence fragment, sent when the readers' arrival settles, is counted apart).
            assert live.made["game"] - made == 2
            english = {reader.events[-1][2] for reader in readers[:5]}
            assert len(english) == 1, "the seats and the English spectator read the same"

            made = live.made["game"]
            ann = await page_client(url, game_id, tokens[0])
            assert await hold(ann, game_id, True) == version + 2
            await ann.aclose()
            for reader in readers:
                await reader.until(version + 2)
            assert live.made["game"] - made == 2
            for reader in readers:
                event, seen, data = reader.events[-1]
                assert (event, seen) == ("change", version + 2)
                # Only the held die changed: not the rest of the tray, the sheet, the log...
                assert data.startswith('<li id="die-0" data-live-part hx-swap-oob="true">')
                assert data.count("<li ") == 1, "one die"
                assert 'id="scoresheet"' not in data
                assert len(data.encode()) < 1024, len(data.encode())
                whole = next(d for e, s, d in reader.events if (e, s) == ("update", version))
                assert len(data) * 4 < len(whole)
            for reader in readers:
                await reader.close()

    asyncio.run(scenario())


def test_every_reader_sees_every_version_in_order(served: tuple[str, Any]) -> None:
    url, _app = served
    with httpx.Client(base_url=url, timeout=10) as client:
        game_id, tokens, version = four_players(client)

    async def scenario() -> None:
        async with httpx.AsyncClient(base_url=url, timeout=10) as browsers:
            spectator = Reader(browsers, game_id, {})
            seat = Reader(browsers, game_id, {"Cookie": f"penta_seat_{game_id}={tokens[2]}"})
            for reader in (spectator, seat):
                await reader.open(version)
            rolled = await browsers.post(
                f"/api/v1/games/{game_id}/roll", json={"hold": []}, headers=auth(tokens[0])
            )
            assert rolled.status_code == 200
            # A burst of holds, as fast as the server takes them: none is coalesced away.
            ann = await page_client(url, game_id, tokens[0])
            for index in range(12):
                last = await hold(ann, game_id, index % 2 == 0)
            await ann.aclose()
            assert last == version + 13
            for reader in (spectator, seat):
                await reader.until(last)
                assert [seen for _, seen, _ in reader.events] == list(range(version, last + 1))
                # The first is the whole board; each after it only what changed.
                assert [event for event, _, _ in reader.events] == ["update"] + ["change"] * 13
                await reader.close()

    asyncio.run(scenario())


class Sends:
    """An ASGI app around another that keeps what each event stream sends, message by
    message: one ``http.response.body`` is one write to the connection."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.streams: list[list[str]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].endswith("/events"):
            await self.app(scope, receive, send)
            return
        bodies: list[str] = []
        self.streams.append(bodies)

        async def keep(message: Any) -> None:
            if message["type"] == "http.response.body" and message.get("body"):
                bodies.append(message["body"].decode())
            await send(message)

        await self.app(scope, receive, keep)


def test_a_score_reaches_each_reader_in_one_send_with_the_table_it_changes(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings()
    app: Any = create_app(settings)
    upgrade(settings.resolved_database_url)
    sends = Sends(app)
    with serving(sends) as url, httpx.Client(base_url=url, timeout=10) as client:
        game_id, tokens, version = four_players(client)

        async def scenario() -> None:
            async with httpx.AsyncClient(base_url=url, timeout=10) as browsers:
                readers = [
                    Reader(browsers, game_id, {"Cookie": f"penta_seat_{game_id}={token}"})
                    for token in tokens[:2]
                ]
                readers.append(Reader(browsers, game_id, {}))  # a spectator
                for reader in readers:
                    await reader.open(version)
                answer = await browsers.post(
                    f"/api/v1/games/{game_id}/roll", json={"hold": []}, headers=auth(tokens[0])
                )
                assert answer.status_code == 200
                answer = await browsers.post(
                    f"/api/v1/games/{game_id}/score",
                    json={"box": "chance"},
                    headers=auth(tokens[0]),
                )
                assert answer.status_code == 200
                for reader in readers:
                    await reader.until(version + 2)
                    await reader.close()

        asyncio.run(scenario())
    app.state.service.database.dispose()
    # The table of the new turn is rendered for every reader at once, not once per seat, and
    # kept once per version and language (one rendered again at this version, if presence
    # changed, takes the place of the one before).
    live: LiveViews = app.state.live_views
    tables = [key for key in live._renderings if key.kind.startswith("table:")]
    scored_tables = [key for key in tables if key.version == version + 2]
    assert all(key.seat is None for key in tables), "a table rendered for one seat"
    assert scored_tables == [RenderingKey(game_id, version + 2, "table:en")], tables
    assert len(sends.streams) == 3
    for stream in sends.streams:
        (scored,) = [body for body in stream if f"\nid: {version + 2}\n" in body]
        # The turn passed to Bob: the sheet's change and the table that says so, one write.
        assert scored.startswith("event: change\n"), scored[:80]
        assert "\n\nevent: table\n" in scored, scored[:200]


def test_a_moves_answer_and_the_bots_streams_share_one_encoding_of_its_version(
    served: tuple[str, Any],
) -> None:
    url, app = served
    live: LiveViews = app.state.live_views
    with httpx.Client(base_url=url, timeout=10) as client:
        game_id, tokens, version = four_players(client)
        made = live.made["api"]
        rolled = client.post(
            f"/api/v1/games/{game_id}/roll", json={"hold": []}, headers=auth(tokens[0])
        )
        assert rolled.status_code == 200
        assert rolled.json()["version"] == version + 1
        assert live.made["api"] - made == 1
        # A bot's stream that saw the version before reads the same bytes, not encoded again.
        headers = {**auth(tokens[1]), "Last-Event-ID": str(version)}
        with client.stream("GET", f"/api/v1/games/{game_id}/events", headers=headers) as stream:
            lines = stream.iter_lines()
            data = next(line for line in lines if line.startswith("data: "))
        assert data == "data: " + rolled.text
        assert live.made["api"] - made == 1


def test_a_roll_sends_the_tray_and_the_sheet_and_a_score_leaves_the_dices_seeds_out(
    served: tuple[str, Any],
) -> None:
    """What a change carries (each fragment ``hx-swap-oob``): a roll changes the dice and the
    boxes offered, nothing of the log, the status or the dice's seeds; a score the log too."""
    url, _app = served
    with httpx.Client(base_url=url, timeout=10) as client:
        game_id, tokens, version = four_players(client)

    async def scenario() -> list[tuple[str, int, str]]:
        async with httpx.AsyncClient(base_url=url, timeout=10) as browsers:
            spectator = Reader(browsers, game_id, {})
            await spectator.open(version)
            for path, body in (("roll", {"hold": []}), ("score", {"box": "chance"})):
                answer = await browsers.post(
                    f"/api/v1/games/{game_id}/{path}", json=body, headers=auth(tokens[0])
                )
                assert answer.status_code == 200, answer.text
            await spectator.until(version + 2)
            await spectator.close()
            return spectator.events

    events = asyncio.run(scenario())
    whole, rolled, scored = events
    assert (whole[0], rolled[:2], scored[:2]) == (
        "update",
        ("change", version + 1),
        ("change", version + 2),
    )

    def fragments(data: str) -> list[str]:
        return re.findall(r'id="([a-z_-]+)"[^>]*hx-swap-oob', data)

    boxes = [f"sheet-{box.value}" for box in (*UPPER_BOXES, *LOWER_BOXES)]
    # The sheet's rows are parts of their own: a change sends the rows that differ (each in
    # a <template>, where HTML parses a row standing alone), never the whole sheet, whose
    # frame does not change with a move.
    assert fragments(rolled[2]) == ["dice-tray", "sheet-turn", *boxes], "the offers, row by row"
    assert fragments(scored[2]) == [
        "dice-tray",
        "sheet-turn",
        "sheet-head",  # whose turn it is
        *boxes,  # the offers gone, and chance scored
        "sheet-total",  # not the upper subtotal, its bonus or the Penta bonus
        "activity",
        "activity-latest",
    ]
    for change in (rolled[2], scored[2]):
        assert 'id="scoresheet"' not in change
        assert change.count('<template><tr id="sheet-') == change.count("<tr ")
    assert len(rolled[2].encode()) < 16_000, len(rolled[2].encode())
    assert len(scored[2].encode()) < len(whole[2].encode())
