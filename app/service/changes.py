"""The one path of every change to a game: the game as the transaction sees it, the write, the
kept snapshot and the announcement. The lobby and play both go through it, side by side."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, select
from sqlalchemy.orm import Session, selectinload

from app.service.deadlines import Deadlines
from app.service.errors import NotFoundError
from app.service.views import GameView
from app.store.database import Database
from app.store.log import replay_log
from app.store.models import ActionRecord, GameRecord, GameStatus
from app.store.snapshots import Snapshot, Snapshots, snapshot_of

ChangeListener = Callable[[str, int, GameView | None], None]
"""Told ``(game_id, version, view)`` after every committed change: ``view`` is the game as
committed, handed over so that nobody reads it back (None where no view was made, as for a
sweep's many games: a listener that needs it reads that version from the database)."""


class Changes:
    """Games as kept in memory, each change committed and then announced to the listeners."""

    def __init__(self, database: Database, deadlines: Deadlines) -> None:
        self.database = database
        self.deadlines = deadlines
        self.listeners: list[ChangeListener] = []
        self.snapshots = Snapshots()

    def snapshot(self, connection: Connection, game_id: str) -> Snapshot:
        """The game as the connection's transaction sees it, or 404."""
        snapshot = self.snapshots.load(connection, game_id)
        if snapshot is None:
            raise NotFoundError("not_found", "there is no such game")
        return snapshot

    def committed(self, snapshot: Snapshot) -> GameView:
        """Keep a change's snapshot once it is committed and tell the listeners; its view."""
        self.snapshots.keep(snapshot)
        view = self.view(snapshot)
        for listener in self.listeners:
            listener(view.id, view.version, view)
        return view

    def view(self, snapshot: Snapshot) -> GameView:
        """What pages and the API see of ``snapshot``."""
        return GameView.of(
            snapshot.record,
            snapshot.state,
            activity=snapshot.activity,
            scored_now=snapshot.scored,
            auto_deadline=self.deadlines.auto_deadline(snapshot.record.due_at),
        )

    def change_records(self, game_id: str, change: Callable[[GameRecord], None]) -> GameView:
        """Apply ``change`` to the game's row and seats (never its log) and bump its version,
        in one write; then announce it.

        The state comes from the kept snapshot, not from a replay of the log: a change of
        seats (or of hints) leaves the dice and sheets as they were, and replaying a game of
        30,000 logged actions took a second. A waiting game's state depends only on how many
        seats it has, and its log is empty.
        """
        with self.database.writing() as session:
            kept = self.snapshot(session.connection(), game_id)
            record = load_game(session, game_id, with_actions=False)
            change(record)
            # A change may log an entry that is no rules action (a seat handed over): counted.
            appended = sum(isinstance(item, ActionRecord) for item in session.new)
            record.version += 1
            session.flush()
            state = kept.state
            if record.status == GameStatus.WAITING:
                state = replay_log(record.status, len(record.players), ())
            snapshot = snapshot_of(record, state, kept, appended=appended)
        return self.committed(snapshot)


def load_game(session: Session, game_id: str, *, with_actions: bool = True) -> GameRecord:
    """The game's records with its seats, and its whole log unless ``with_actions`` is off
    (then ``record.actions`` must not be touched: it would load the log)."""
    options = [selectinload(GameRecord.players)]
    if with_actions:
        options.append(selectinload(GameRecord.actions))
    record = session.scalars(
        select(GameRecord).where(GameRecord.id == game_id).options(*options)
    ).one_or_none()
    if record is None:
        raise NotFoundError("not_found", "there is no such game")
    return record
