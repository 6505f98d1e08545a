"""The bus's messages: a game's new version, a worker's streams of a seat, a signal.

One line each, words split by spaces, the sending worker's origin (16 hex digits) first:

- ``origin game version due``: the first kind, unchanged (so old workers still read it);
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
from datetime import UTC, datetime

from app.service.reactions import REACTIONS, Reaction

MAX_ENTRIES = 500
"""Seats one presence message carries at most (a heartbeat of more is several messages)."""
MAX_NAME = 200
"""Longest player name a signal may carry (names are shorter: a longer one is malformed)."""


@dataclass(frozen=True)
class VersionMessage:
    origin: str
    game_id: str
    version: int
    due: datetime | None


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


Message = VersionMessage | PresenceMessage | SignalMessage


class MalformedMessageError(ValueError):
    """A bus message this worker cannot read (malformed, or of a kind it does not know)."""


def version_message(origin: str, game_id: str, version: int, due: datetime | None) -> str:
    return f"{origin} {game_id} {version} {due.timestamp() if due else '-'}"


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
    except ValueError as error:  # a wrong count of words, a bad number or JSON
        raise MalformedMessageError(str(error)) from error


def _parse(text: str) -> Message:
    if text.startswith("presence "):
        _, origin, *words = text.split(" ")
        if not 0 < len(words) <= MAX_ENTRIES:
            raise ValueError("no entries, or too many")
        return PresenceMessage(origin, tuple(_entry(word) for word in words))
    if text.startswith("signal "):
        _, origin, game_id, body_text = text.split(" ", 3)
        return SignalMessage(origin, game_id, _reaction(json.loads(body_text)))
    origin, game_id, version_text, due_text = text.split(" ")
    due = None if due_text == "-" else datetime.fromtimestamp(float(due_text), UTC)
    return VersionMessage(origin, game_id, int(version_text), due)


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
