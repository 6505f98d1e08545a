"""The bus's messages: a game's new version (or the move that made it), a worker's streams of
a seat, a signal.

One line each, words split by spaces, the sending worker's origin (16 hex digits) first.
A game's changes and signals go on that game's channel, presence on the bus's own:

- ``origin game version``: a change the others cannot follow from a message (a seat taken,
  a game started, a sweep): they read that version from the database;
- ``change origin game json``: a move, as JSON: the version it made and the one it was
  written on (``base``), the game's columns and its seats'
  after it **without their secrets** (no server seed, no seat's secret hashes: what is
  told over Redis is no secret) and the log entries it appended (at most
  :data:`MAX_ROWS`). A worker keeping the game at ``base`` brings its snapshot forward from
  it with no read (see ``app.store.snapshots.follow``), the secrets from its own copy;
  any other reads the database, as for the first kind;
- ``presence origin game/seat/streams ...``: the origin's open streams of each seat
  (``-``: the spectators), one entry when the number changes, up to :data:`MAX_ENTRIES` per
  message on every heartbeat (game ids are URL-safe: no ``/`` nor space in them);
- ``signal origin game json``: a signal for the game's readers (a reaction), as JSON.

A kind word is never 16 hex digits, so it cannot be mistaken for an origin; a worker that
does not know a kind ignores its message as malformed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Table

from app.service.reactions import REACTIONS, Reaction
from app.store.models import ActionKind, GameRecord, GameStatus, PlayerRecord, Reason
from app.store.rows import PUBLIC_GAME_COLUMNS, PUBLIC_SEAT_COLUMNS, public_columns
from app.store.snapshots import Appended, LoggedRow, Snapshot

MAX_ENTRIES = 500
"""Seats one presence message carries at most (a heartbeat of more is several messages)."""
MAX_NAME = 200
"""Longest player name a signal may carry (names are shorter: a longer one is malformed)."""
MAX_ROWS = 32
"""Log entries one change message carries at most (a move appends a handful; a write of more
is told as a version, and read from the database)."""
MAX_SEATS = 16
"""Seats one change message carries at most (a game has six at most)."""
MAX_CHANGE_TEXT = 32_000
"""Longest change message read (one is about 2,000 characters); a longer one is malformed."""


@dataclass(frozen=True)
class VersionMessage:
    origin: str
    game_id: str
    version: int


PresenceEntry = tuple[str, int | None, int]
"""``(game_id, seat, streams)``: seat None for the spectators."""


@dataclass(frozen=True)
class PresenceMessage:
    origin: str
    entries: tuple[PresenceEntry, ...]


@dataclass(frozen=True)
class SignalMessage:
    origin: str
    game_id: str
    signal: Reaction


@dataclass(frozen=True)
class ChangeMessage:
    origin: str
    game_id: str
    version: int
    game: dict[str, Any]
    """The game's columns after the change but its secrets (see ``rows.public_columns``)."""
    seats: tuple[dict[str, Any], ...]
    """Each seat's, the same way, in seat order."""
    appended: Appended


Message = VersionMessage | ChangeMessage | PresenceMessage | SignalMessage


class MalformedMessageError(ValueError):
    """A bus message this worker cannot read (malformed, or of a kind it does not know)."""


def version_message(origin: str, game_id: str, version: int) -> str:
    return f"{origin} {game_id} {version}"


def change_message(origin: str, snapshot: Snapshot) -> str | None:
    """The message of the write that made ``snapshot``; None if it tells no such write (it
    was made otherwise) or one of more than :data:`MAX_ROWS` entries."""
    appended = snapshot.appended
    if appended is None or len(appended.rows) > MAX_ROWS:
        return None
    game, seats = public_columns(snapshot.record)
    body = {
        "version": snapshot.version,
        "base": appended.base,
        "game": {name: _json_value(value) for name, value in game.items()},
        "seats": [{name: _json_value(value) for name, value in seat.items()} for seat in seats],
        "rows": [list(row) for row in appended.rows],
    }
    return f"change {origin} {snapshot.record.id} {json.dumps(body, separators=(',', ':'))}"


def presence_messages(origin: str, entries: Sequence[PresenceEntry]) -> list[str]:
    """The messages telling ``entries``, :data:`MAX_ENTRIES` at most in each."""
    words = [f"{game}/{'-' if seat is None else seat}/{streams}" for game, seat, streams in entries]
    return [
        " ".join(["presence", origin, *words[start : start + MAX_ENTRIES]])
        for start in range(0, len(words), MAX_ENTRIES)
    ]


def signal_message(origin: str, game_id: str, reaction: Reaction) -> str:
    body = {"n": reaction.number, "seat": reaction.seat, "name": reaction.name}
    return f"signal {origin} {game_id} {json.dumps({**body, 'kind': reaction.kind})}"


def parse(text: str) -> Message:
    """The message ``text`` carries; :class:`MalformedMessageError` if it is malformed or of
    a kind unknown here."""
    try:
        return _parse(text)
    except (ValueError, RecursionError) as error:  # wrong words, numbers or JSON; JSON nested
        raise MalformedMessageError(str(error)) from error  # too deep for the decoder


def _parse(text: str) -> Message:
    if text.startswith("presence "):
        _, origin, *words = text.split(" ")
        if not 0 < len(words) <= MAX_ENTRIES:
            raise ValueError("no entries, or too many")
        return PresenceMessage(origin, tuple(_entry(word) for word in words))
    if text.startswith("change "):
        if len(text) > MAX_CHANGE_TEXT:
            raise ValueError("a change message too long")
        _, origin, game_id, body_text = text.split(" ", 3)
        return _change(origin, game_id, json.loads(body_text))
    if text.startswith("signal "):
        _, origin, game_id, body_text = text.split(" ", 3)
        return SignalMessage(origin, game_id, _reaction(json.loads(body_text)))
    origin, game_id, version_text = text.split(" ")
    return VersionMessage(origin, game_id, int(version_text))


def _entry(word: str) -> PresenceEntry:
    game_id, seat_text, streams_text = word.split("/")
    seat = None if seat_text == "-" else int(seat_text)
    streams = int(streams_text)
    if not game_id or (seat is not None and seat < 0) or streams < 0:
        raise ValueError("an empty game, or a negative seat or streams")
    return game_id, seat, streams


def _reaction(body: object) -> Reaction:
    """The reaction of a signal's body, checked as strictly as one sent here."""
    if not isinstance(body, dict):
        raise ValueError("a signal is an object")
    number, seat, name, kind = body.get("n"), body.get("seat"), body.get("name"), body.get("kind")
    if not (isinstance(number, int) and isinstance(seat, int) and seat >= 0):
        raise ValueError("a reaction's number and seat are integers")
    if not (isinstance(name, str) and len(name) <= MAX_NAME and kind in REACTIONS):
        raise ValueError("a reaction's name or kind is not one")
    assert isinstance(kind, str)
    return Reaction(number, seat, name, kind)


def _json_value(value: object) -> object:
    """A column's value as JSON: a time as its ISO text (naive stays naive, aware aware)."""
    return value.isoformat() if isinstance(value, datetime) else value


def _change(origin: str, game_id: str, body: object) -> ChangeMessage:
    """The change a body tells, each column checked against its table's type."""
    if not isinstance(body, dict) or body.keys() != {
        "version",
        "base",
        "game",
        "seats",
        "rows",
    }:
        raise ValueError("a change is an object of version, base, game, seats, rows")
    version, base, seats, rows = body["version"], body["base"], body["seats"], body["rows"]
    if not (type(version) is int and type(base) is int and 0 <= base < version):
        raise ValueError("a change moves the version on from its base")
    if not (isinstance(seats, list) and 0 < len(seats) <= MAX_SEATS):
        raise ValueError("no seats, or too many")
    if not (isinstance(rows, list) and len(rows) <= MAX_ROWS):
        raise ValueError("too many log entries")
    game = _columns(body["game"], _GAME_COLUMNS)
    if game["id"] != game_id or game["version"] != version or game["status"] not in _STATUSES:
        raise ValueError("a change's row is of another game or version, or of no status")
    return ChangeMessage(
        origin,
        game_id,
        version,
        game,
        tuple(_columns(seat, _SEAT_COLUMNS) for seat in seats),
        Appended(base, tuple(_logged(row) for row in rows)),
    )


@dataclass(frozen=True)
class _Columns:
    """The columns a message carries of one table: each one's name, Python type and whether
    it may be NULL, read off the table once (asking SQLAlchemy per message was two thirds of
    a change message's parse)."""

    table: str
    names: frozenset[str]
    types: tuple[tuple[str, type, bool], ...]

    @classmethod
    def of(cls, table: Table, names: Sequence[str]) -> _Columns:
        types = tuple(
            (name, table.c[name].type.python_type, bool(table.c[name].nullable)) for name in names
        )
        return cls(table.name, frozenset(names), types)


_GAME_COLUMNS = _Columns.of(GameRecord.__table__, PUBLIC_GAME_COLUMNS)  # type: ignore[arg-type]
_SEAT_COLUMNS = _Columns.of(PlayerRecord.__table__, PUBLIC_SEAT_COLUMNS)  # type: ignore[arg-type]
_KINDS = frozenset(kind.value for kind in ActionKind)
_REASONS = frozenset(reason.value for reason in Reason)
_STATUSES = frozenset(status.value for status in GameStatus)


def _columns(values: object, expected: _Columns) -> dict[str, Any]:
    """``values``, exactly the ``expected`` columns, each of its column's type (a time from
    its ISO text); ValueError if not."""
    if not isinstance(values, dict) or values.keys() != expected.names:
        raise ValueError(f"not the columns of {expected.table}")
    columns = {}
    for name, kind, nullable in expected.types:
        value = values[name]
        if value is None:
            if not nullable:
                raise ValueError(f"{expected.table}.{name} is never NULL")
        elif kind is datetime:
            if not isinstance(value, str):
                raise ValueError(f"{expected.table}.{name} is a time")
            value = datetime.fromisoformat(value)
        elif type(value) is not kind:
            raise ValueError(f"{expected.table}.{name} is a {kind.__name__}")
        columns[name] = value
    return columns


def _logged(row: object) -> LoggedRow:
    """A log entry ``(kind, payload, reason)`` of a change, of a known kind and reason."""
    if not (isinstance(row, list) and len(row) == 3):
        raise ValueError("a log entry is [kind, payload, reason]")
    kind, payload, reason = row
    if not (isinstance(kind, str) and kind in _KINDS and isinstance(payload, dict)):
        raise ValueError("a log entry's kind or payload is not one")
    if reason is not None and not (isinstance(reason, str) and reason in _REASONS):
        raise ValueError("a log entry's reason is not one")
    return kind, payload, reason
