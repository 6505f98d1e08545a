"""The one door of the service to the database: games as snapshots, changes in transactions.

The service asks for a game's snapshot and hands back what changed; which statements run (the
ORM, or the Core statements run on the driver's cursor that every move takes), how a write is
serialised (SQLite's lock, PostgreSQL's row lock) and when a kept snapshot is still valid are
the store's. Nothing here decides a rule or a refusal.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, func, select
from sqlalchemy.orm import Session, object_session, selectinload

from app.rules import Action, Game
from app.store import retention
from app.store.cache import Snapshots
from app.store.database import Database
from app.store.due import claim_due, due_games, forget_due
from app.store.log import replay_log
from app.store.models import (
    RULES_KINDS,
    ActionKind,
    ActionRecord,
    GameRecord,
    GameStatus,
    Reason,
)
from app.store.people import Rated, ratings_of, write_pentas, write_ratings
from app.store.rows import GameRow
from app.store.snapshots import (
    Snapshot,
    insert_game,
    read_actions,
    snapshot_of,
    write_actions,
    write_client_seeds,
    write_seat_order,
)
from app.store.statements import SEAT_NAMES


class NoSuchGame(LookupError):
    """There is no game with that id (the service answers 404)."""


class Reading:
    """One read transaction: every snapshot in it is of the same moment."""

    def __init__(self, connection: Connection, snapshots: Snapshots) -> None:
        self._connection = connection
        self._snapshots = snapshots

    def snapshot(self, game_id: str) -> Snapshot:
        """The game as this transaction sees it; :class:`NoSuchGame` if there is none. In a
        write, its row is this transaction's until the end (see ``current_version``)."""
        snapshot = self._snapshots.load(self._connection, game_id)
        if snapshot is None:
            raise NoSuchGame(game_id)
        return snapshot

    def actions(self, game_id: str) -> list[Action]:
        """The game's rules actions in order (read before its snapshot, they are of the same
        moment: the first read begins the transaction)."""
        return read_actions(self._connection, game_id)

    def due_games(
        self, *, before: datetime | None = None, limit: int | None = None
    ) -> list[tuple[str, datetime]]:
        """The games where the server has something to do, soonest first, with when: every
        one, or the first ``limit`` due before ``before``."""
        return due_games(self._connection, before=before, limit=limit)


class Writing(Reading):
    """One write transaction, committed at the end of :meth:`GameStore.writing`."""

    def claim_due(self, game_id: str) -> datetime | None:
        """Hold the game for this transaction unless another worker holds it (then None):
        the database's clock (see ``due.claim_due``)."""
        return claim_due(self._connection, game_id)

    def forget_due(self, snapshot: Snapshot) -> None:
        """Clear a deadline that passed with nothing due (see ``due.forget_due``)."""
        forget_due(self._connection, snapshot)

    def insert(self, record: GameRow, state: Game) -> Snapshot:
        """Insert a new game; its snapshot."""
        return insert_game(self._connection, record, state)

    def append(
        self,
        snapshot: Snapshot,
        seat: int,
        actions: Sequence[Action],
        state: Game,
        changes: Mapping[str, Any],
        *,
        reason: Reason | None,
        final_totals: Mapping[int, int] | None = None,
    ) -> Snapshot:
        """Log ``actions`` and update the game's row, if still at the snapshot's version
        (else ``StaleWriteError``); the snapshot that results."""
        return write_actions(
            self._connection,
            snapshot,
            seat,
            actions,
            state,
            changes,
            reason=reason,
            final_totals=final_totals,
        )

    def set_client_seeds(self, snapshot: Snapshot, seeds: Mapping[int, str]) -> Snapshot:
        """Set seats' client seeds in this change; the snapshot with them."""
        return write_client_seeds(self._connection, snapshot, seeds)

    def set_seat_order(self, snapshot: Snapshot, order: Sequence[int]) -> Snapshot:
        """Seat ``i`` takes the player of seat ``order[i]`` (see ``write_seat_order``)."""
        return write_seat_order(self._connection, snapshot, order)

    def set_pentas(self, snapshot: Snapshot, pentas: Mapping[int, int]) -> Snapshot:
        """Set the Pentas each seat scored (at the end of the game); the snapshot with them."""
        write_pentas(self._connection, snapshot.record.id, pentas)
        seats = tuple(
            replace(player, pentas=pentas.get(player.seat, player.pentas))
            for player in snapshot.record.players
        )
        return replace(snapshot, record=replace(snapshot.record, players=seats))

    def ratings_of(self, person_ids: Sequence[str]) -> dict[str, tuple[float, float]]:
        """The players' ratings (mu, sigma), theirs to change until this transaction ends."""
        return ratings_of(self._connection, person_ids)

    def rate(self, game_id: str, rated: Sequence[Rated], moment: datetime) -> None:
        """Record what the game did to its players' ratings, once."""
        write_ratings(self._connection, game_id, rated, moment)

    def seat_names(self, game_id: str) -> list[tuple[int, str, bool]]:
        """The seats of a game (of another than the one being written: a rematch's previous
        game) as their numbers, names and whether computers."""
        rows = self._connection.execute(SEAT_NAMES, {"game_id": game_id})
        return [(seat, name, computer) for seat, name, computer in rows]


class Editing:
    """One write transaction over games' records (their rows and seats, never their logs),
    for the rarer changes: seats, hints, hand-overs, rematches."""

    def __init__(self, session: Session, snapshots: Snapshots) -> None:
        self._session = session
        self._reading = Reading(session.connection(), snapshots)

    def snapshot(self, game_id: str) -> Snapshot:
        """The game's kept snapshot, as this transaction sees it (its row now held)."""
        return self._reading.snapshot(game_id)

    def record(self, game_id: str) -> GameRecord:
        """The game's records with its seats, to change (not its log, which may be long)."""
        return load_record(self._session, game_id)

    def add(self, record: GameRecord) -> None:
        """Insert a new game's records at the end of the transaction."""
        self._session.add(record)

    def bump(self, kept: Snapshot, record: GameRecord) -> Snapshot:
        """Move the game's version on (the change is then flushed); its snapshot, with the
        state and the log of ``kept`` (plus the entries this change logged, counted)."""
        appended = sum(
            isinstance(item, ActionRecord) and item.game_id == record.id
            for item in self._session.new
        )
        record.version += 1
        self._session.flush()
        state = kept.state
        if record.status == GameStatus.WAITING:  # its state depends only on its seats
            state = replay_log(record.status, len(record.players), ())
        return snapshot_of(record, state, kept, appended=appended)

    def created(self, record: GameRecord) -> Snapshot:
        """The snapshot of a new waiting game added in this transaction (flushed)."""
        self._session.flush()
        return snapshot_of(record, Game.new(len(record.players)))


class GameStore:
    """Games in the database, through the snapshots kept of them in this process."""

    def __init__(self, database: Database, snapshots: Snapshots | None = None) -> None:
        self.database = database
        self.snapshots = snapshots or Snapshots()

    @contextmanager
    def reading(self) -> Iterator[Reading]:
        """A read transaction (REPEATABLE READ on PostgreSQL)."""
        with self.database.read_connection() as connection:
            yield Reading(connection, self.snapshots)

    @contextmanager
    def writing(self) -> Iterator[Writing]:
        """A write transaction, committed at the end (see ``Database.write_connection`` for
        its lock and for why a caller on the event loop may be refused)."""
        with self.database.write_connection() as connection:
            yield Writing(connection, self.snapshots)

    @contextmanager
    def editing(self) -> Iterator[Editing]:
        """A write transaction over records (the ORM), committed at the end."""
        with self.database.writing() as session:
            yield Editing(session, self.snapshots)

    def keep(self, snapshot: Snapshot) -> None:
        """Keep a committed change's snapshot."""
        self.snapshots.keep(snapshot)

    def peek(self, game_id: str) -> Snapshot | None:
        """The kept snapshot of the game, unchecked (it may be out of date), or None."""
        return self.snapshots.peek(game_id)

    def load(self, game_ids: Sequence[str]) -> None:
        """Load (and replay) games into memory, as many as it keeps, ahead of their use."""
        with self.database.read_connection() as connection:
            for game_id in game_ids[: self.snapshots.size]:
                self.snapshots.load(connection, game_id)

    def sweep(
        self,
        moment: datetime,
        *,
        abandon_after: timedelta | None,
        delete_after: timedelta | None,
        run: int | None = None,
    ) -> retention.Swept:
        """Note this server's ``run`` as up, close long-idle games and delete old finished
        ones, in one write."""
        with self.database.write_connection() as connection:
            return retention.sweep(
                connection,
                moment,
                abandon_after=abandon_after,
                delete_after=delete_after,
                run=run,
            )


def load_record(session: Session, game_id: str, *, with_actions: bool = False) -> GameRecord:
    """The game's records with its seats, and its whole log if ``with_actions``;
    :class:`NoSuchGame` if there is none."""
    options = [selectinload(GameRecord.players)]
    if with_actions:
        options.append(selectinload(GameRecord.actions))
    record = session.scalars(
        select(GameRecord).where(GameRecord.id == game_id).options(*options)
    ).one_or_none()
    if record is None:
        raise NoSuchGame(game_id)
    return record


def remove_player(record: GameRecord, seat: int) -> None:
    """Remove a seat of a game being changed; the seats after it move up one."""
    session = object_session(record)
    assert session is not None, "a record being changed belongs to its change"
    record.players.pop(seat)
    session.flush()  # the row is gone before the seats after it take its number
    for player in record.players[seat:]:
        player.seat -= 1


def newest_entry(record: GameRecord) -> ActionRecord | None:
    """The game's newest logged entry, read in the change that holds ``record``."""
    session = object_session(record)
    assert session is not None, "a record being changed belongs to its change"
    return session.scalars(
        select(ActionRecord)
        .where(ActionRecord.game_id == record.id)
        .order_by(ActionRecord.number.desc())
        .limit(1)
    ).first()


def last_played(record: GameRecord, seat: int) -> datetime | None:
    """When the seat's player last made a rules action themselves (not the computer for them),
    by the database's clock, read in the change that holds ``record``; None if never."""
    session = object_session(record)
    assert session is not None, "a record being changed belongs to its change"
    return session.scalar(
        select(func.max(ActionRecord.created_at)).where(
            ActionRecord.game_id == record.id,
            ActionRecord.seat == seat,
            ActionRecord.by_computer.is_(False),
            ActionRecord.reason.is_(None),
            ActionRecord.kind.in_([kind.value for kind in RULES_KINDS]),
        )
    )


def log_entry(record: GameRecord, seat: int, kind: ActionKind, payload: dict[str, Any]) -> None:
    """Log an entry that is no rules action (a seat handed over or taken back) after the
    game's newest one, in the change that holds ``record`` (its log is never loaded)."""
    session = object_session(record)
    assert session is not None, "a record being changed belongs to its change"
    newest = session.scalar(
        select(func.max(ActionRecord.number)).where(ActionRecord.game_id == record.id)
    )
    session.add(
        ActionRecord(
            game_id=record.id,
            number=(newest or 0) + 1,
            seat=seat,
            kind=kind.value,
            payload=payload,
            by_computer=False,
        )
    )
