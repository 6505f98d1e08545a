"""Games as of a version, kept in memory, and the one-statement writes that move them on.

Loading a game through the ORM and replaying its whole log took most of the time of every
request (profiled: about 4 ms of 10 ms per action). A :class:`Snapshot` is the game's row,
its seats and its replayed state at one version; :class:`Snapshots` keeps the newest one of
each recent game. Every read first asks the database for the game's version (one indexed
lookup in the caller's transaction) and uses the kept snapshot only if it is of that
version, so a snapshot is never stale: every change to a game bumps its version (see
``GameRecord``), whoever makes it, in this process or another.

A snapshot's record is *detached*: its columns and seats are loaded, its action log is not
(reading ``record.actions`` raises), and nobody changes it after it is made.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import CursorResult, bindparam, insert, select, update
from sqlalchemy.orm import Session, make_transient_to_detached, selectinload

from app.rules import Action, Game
from app.store.log import action_row, replay
from app.store.models import ActionRecord, GameRecord, PlayerRecord

CACHE_SIZE = 4096
"""Games kept; beyond it the least recently used is dropped (and loaded again if needed)."""

# Core statements, built once and run on the session's connection: the ORM's bulk paths
# (which would look for the rows' objects in the session) cost more than the writes.
_VERSION = select(GameRecord.version).where(GameRecord.id == bindparam("game_id"))
_ADVANCING = ("version", "status", "updated_at", "turn_started_at", "finished_at")
"""The columns of a game's row that an action may change."""
_ADVANCE = (
    update(GameRecord)
    .where(GameRecord.id == bindparam("of_game"), GameRecord.version == bindparam("of_version"))
    .values({column: bindparam(column) for column in _ADVANCING})
)
_LOG = insert(ActionRecord)
_FINAL_TOTAL = (
    update(PlayerRecord)
    .where(PlayerRecord.game_id == bindparam("of_game"), PlayerRecord.seat == bindparam("of_seat"))
    .values(final_total=bindparam("total"))
)


@dataclass(frozen=True)
class Snapshot:
    """A game at one version: its row and seats (``record``), its state and its log length."""

    record: GameRecord
    state: Game
    logged: int
    """How many actions its log holds."""

    @property
    def version(self) -> int:
        return self.record.version


class StaleWriteError(Exception):
    """The game's row was not at the version the write was planned on."""


def current_version(session: Session, game_id: str) -> int | None:
    """The game's version in the session's transaction, or None if there is no such game."""
    version: int | None = (
        session.connection().execute(_VERSION, {"game_id": game_id}).scalar_one_or_none()
    )
    return version


def load_snapshot(session: Session, game_id: str) -> Snapshot | None:
    """The game read in full from the database and replayed, or None if there is none."""
    record = session.scalars(
        select(GameRecord)
        .where(GameRecord.id == game_id)
        .options(selectinload(GameRecord.players), selectinload(GameRecord.actions))
    ).one_or_none()
    if record is None:
        return None
    return snapshot_of(record, replay(record))


def snapshot_of(record: GameRecord, state: Game) -> Snapshot:
    """The snapshot of a record loaded with its seats and log (or new), and its state."""
    return Snapshot(_copy(record, {}, {}), state, len(record.actions))


def write_actions(
    session: Session,
    snapshot: Snapshot,
    seat: int,
    actions: Sequence[Action],
    state: Game,
    changes: Mapping[str, Any],
    *,
    by_computer: bool,
    final_totals: Mapping[int, int] | None = None,
) -> Snapshot:
    """Log ``actions`` after the snapshot's log and update the game's row with ``changes``
    (``version`` among them; any of ``_ADVANCING``), in the session's transaction; the
    snapshot that results.

    The row is updated only if it is still at the snapshot's version (else
    :class:`StaleWriteError`), so a write planned on an old snapshot can never land.
    """
    record = snapshot.record
    rows = []
    for number, action in enumerate(actions, start=snapshot.logged + 1):
        kind, payload = action_row(action)
        rows.append(
            {
                "game_id": record.id,
                "number": number,
                "seat": seat,
                "kind": kind.value,
                "payload": payload,
                "by_computer": by_computer,
            }
        )
    connection = session.connection()
    values = {column: changes.get(column, getattr(record, column)) for column in _ADVANCING}
    if not changes.keys() <= values.keys():
        raise ValueError(f"an action changes only {', '.join(_ADVANCING)}")
    updated: CursorResult[Any] = connection.execute(
        _ADVANCE, {"of_game": record.id, "of_version": record.version, **values}
    )
    if updated.rowcount != 1:
        raise StaleWriteError(record.id)
    if rows:
        connection.execute(_LOG, rows)
    if final_totals:
        connection.execute(
            _FINAL_TOTAL,
            [
                {"of_game": record.id, "of_seat": seat_number, "total": total}
                for seat_number, total in final_totals.items()
            ],
        )
    players = {
        seat_number: {"final_total": total} for seat_number, total in (final_totals or {}).items()
    }
    return Snapshot(_copy(record, changes, players), state, snapshot.logged + len(rows))


def _copy(
    record: GameRecord, changes: Mapping[str, Any], players: Mapping[int, Mapping[str, Any]]
) -> GameRecord:
    """A detached copy of ``record`` and its seats with ``changes`` applied (no action log)."""
    columns = {column.key: getattr(record, column.key) for column in GameRecord.__table__.columns}
    copy = GameRecord(**{**columns, **changes})
    seats = []
    for player in record.players:
        values = {
            column.key: getattr(player, column.key) for column in PlayerRecord.__table__.columns
        }
        seats.append(PlayerRecord(**{**values, **players.get(player.seat, {})}))
    copy.players = seats
    for seat in seats:
        make_transient_to_detached(seat)
    make_transient_to_detached(copy)
    return copy


class Snapshots:
    """The newest snapshot of each recent game, shared by every thread of the process."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._kept: OrderedDict[str, Snapshot] = OrderedDict()
        self._lock = threading.Lock()

    def load(self, session: Session, game_id: str) -> Snapshot | None:
        """The game as the session's transaction sees it (None if there is no such game):
        the kept snapshot when it is of the current version, else one read in full."""
        version = current_version(session, game_id)
        if version is None:
            return None
        with self._lock:
            kept = self._kept.get(game_id)
            if kept is not None and kept.version == version:
                self._kept.move_to_end(game_id)
                return kept
        loaded = load_snapshot(session, game_id)
        if loaded is not None:
            self.keep(loaded)
        return loaded

    def keep(self, snapshot: Snapshot) -> None:
        """Keep ``snapshot`` (once committed) unless a newer one of the game is kept already."""
        game_id = snapshot.record.id
        with self._lock:
            kept = self._kept.get(game_id)
            if kept is None or kept.version < snapshot.version:
                self._kept[game_id] = snapshot
                self._kept.move_to_end(game_id)
                while len(self._kept) > self.size:
                    self._kept.popitem(last=False)
