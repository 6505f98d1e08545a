"""The bots of the capacity bench: four seats of one game, each with its own API connection
and its own live stream, taking their turns with a think time (``bench/capacity.py``)."""

from __future__ import annotations

import asyncio
import random
import time
from typing import TYPE_CHECKING, Any

from bench.client import Connection
from bench.load import _next_action

if TYPE_CHECKING:
    from bench.capacity import Step

SEATS = 4


class Seat:
    """One player: an API connection, a live stream, and the versions its stream has shown."""

    def __init__(self, port: int, game_id: str, token: str, stream: str) -> None:
        self.port, self.game_id, self.token, self.stream = port, game_id, token, stream
        self.api = Connection("127.0.0.1", port)
        self.auth = {"Authorization": f"Bearer {token}"}
        self.arrivals: dict[int, float] = {}
        self.newest = 0
        self.changed = asyncio.Event()
        self._writer: asyncio.StreamWriter | None = None
        self._reading: asyncio.Task[None] | None = None

    async def listen(self, version: int) -> None:
        reader, self._writer = await asyncio.open_connection("127.0.0.1", self.port)
        if self.stream == "page":
            path = f"/games/{self.game_id}/events?version={version}"
            headers = f"Cookie: penta_seat_{self.game_id}={self.token}\r\n"
        else:
            path = f"/api/v1/games/{self.game_id}/events"
            headers = f"Authorization: Bearer {self.token}\r\n"
        request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}\r\n"
        self._writer.write(request.encode())
        head = await reader.readuntil(b"\r\n\r\n")
        if b" 200 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"the stream answered {head[:200]!r}")
        self._reading = asyncio.create_task(self._read(reader))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        """The chunked stream; an event is complete at its blank line. Only game changes
        (``update`` and ``change`` on the page, ``game`` on the API) count, not presence,
        hints or reactions."""
        buffer = b""
        while size := int((await reader.readuntil(b"\r\n")).strip(), 16):
            buffer += await reader.readexactly(size)
            await reader.readexactly(2)
            arrived = time.perf_counter()
            *complete, buffer = buffer.split(b"\n\n")
            for event in complete:
                lines = event.split(b"\n")
                if lines[0] not in (b"event: update", b"event: change", b"event: game"):
                    continue
                for line in lines:
                    if line.startswith(b"id: "):
                        version = int(line[4:])
                        self.arrivals.setdefault(version, arrived)
                        self.newest = max(self.newest, version)
                        self.changed.set()

    async def seen(self, version: int) -> None:
        """Until this seat's stream has shown ``version`` (or a later one)."""
        while self.newest < version:
            self.changed.clear()
            await self.changed.wait()

    def arrival(self, version: int) -> float | None:
        """When the stream showed ``version``, or the first later one (a stream may skip)."""
        later = [at for seen, at in self.arrivals.items() if seen >= version]
        return min(later) if later else None

    async def close(self) -> None:
        if self._reading is not None:
            self._reading.cancel()
        if self._writer is not None:
            self._writer.close()
        await self.api.close()


class Table:
    """One four-player game after another, played by four seats until the step ends."""

    def __init__(self, port: int, stream: str, think: tuple[float, float]) -> None:
        self.port, self.stream, self.think = port, stream, think
        # sent, answered, the version it made, the game's seats, the seat that moved
        self.timings: list[tuple[float, float, int, list[Seat], int]] = []
        self.seats: list[Seat] = []
        self.conflicts = 0
        self.errors: dict[int, int] = {}  # other refusals (503 busy, ...), by status

    async def open(self) -> dict[str, Any]:
        """A new game with four seats joined, each stream open, started (the last game's
        seats are closed; what their streams showed is kept for :meth:`collect`)."""
        await self.close()
        host = Connection("127.0.0.1", self.port)
        created = (await host.request("POST", "/api/v1/games", {"name": "Seat 1"})).json()
        game_id, tokens = created["game"]["id"], [created["token"]]
        for number in range(2, SEATS + 1):
            joined = await host.request(
                "POST", f"/api/v1/games/{game_id}/players", {"name": f"Seat {number}"}
            )
            if joined.status != 201:
                raise RuntimeError(f"joining answered {joined.status}: {joined.body!r}")
            tokens.append(joined.json()["token"])
        await host.close()
        self.seats = [Seat(self.port, game_id, token, self.stream) for token in tokens]
        for seat in self.seats:
            await seat.listen(created["game"]["version"])
        started = await self.seats[0].api.request(
            "POST", f"/api/v1/games/{game_id}/start", None, self.seats[0].auth
        )
        if started.status != 200:
            raise RuntimeError(f"starting answered {started.status}: {started.body!r}")
        game: dict[str, Any] = started.json()
        return game

    async def play(self, game: dict[str, Any], stop_at: float) -> None:
        while time.perf_counter() < stop_at:
            if game["status"] != "playing":
                game = await self.open()
                continue
            seat = self.seats[game["turn"]]
            try:  # a player learns of their turn from the stream; a stream that never
                # shows it (a missed event) must not hold the step past its end
                waiting = max(stop_at - time.perf_counter(), 0.001)
                await asyncio.wait_for(seat.seen(game["version"]), waiting)
            except TimeoutError:
                break
            await asyncio.sleep(random.uniform(*self.think))
            if time.perf_counter() >= stop_at:
                break
            body = _next_action(game)
            action = "score" if "box" in body else "roll"
            path = f"/api/v1/games/{seat.game_id}/{action}"
            sent = time.perf_counter()
            answer = await seat.api.request("POST", path, body, seat.auth)
            answered = time.perf_counter()
            if answer.status == 409:  # the deadline passed: the server has scored for us
                self.conflicts += 1
                game = (await seat.api.request("GET", f"/api/v1/games/{seat.game_id}")).json()
                continue
            if answer.status != 200:  # counted, the step fails; the game is read again
                self.errors[answer.status] = self.errors.get(answer.status, 0) + 1
                game = (await seat.api.request("GET", f"/api/v1/games/{seat.game_id}")).json()
                continue
            game = answer.json()
            mover = self.seats.index(seat)
            self.timings.append((sent, answered, game["version"], self.seats, mover))

    def collect(self, step: Step, measure_from: float, stop_at: float) -> None:
        """The action and event latencies of the measured window into ``step``."""
        for sent, answered, version, seats, mover in self.timings:
            if sent < measure_from or answered > stop_at:
                continue
            step.actions.append(answered - sent)
            for number, seat in enumerate(seats):
                if number == mover:
                    continue
                arrived = seat.arrival(version)
                if arrived is None:
                    step.missed += 1
                else:
                    step.events.append(max(arrived - answered, 0.0))
        step.conflicts += self.conflicts
        for status, count in self.errors.items():
            step.errors[status] = step.errors.get(status, 0) + count

    async def close(self) -> None:
        for seat in self.seats:
            await seat.close()
