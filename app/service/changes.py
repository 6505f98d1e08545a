"""The one path of every change to a game: the game as the transaction sees it, the write, the
kept snapshot and the announcement. The lobby and play both go through it, side by side."""

from __future__ import annotations

from collections.abc import Callable

from app import metrics
from app.service.deadlines import Deadlines
from app.service.errors import NotFoundError
from app.service.views import GameView
from app.store.cache import Snapshots
from app.store.database import Database
from app.store.game_store import Editing, GameStore, NoSuchGame, Reading
from app.store.models import GameRecord, GameStatus
from app.store.snapshots import Snapshot

ChangeListener = Callable[[str, int, GameView | None], None]
"""Told ``(game_id, version, view)`` after every committed change: ``view`` is the game as
committed, handed over so that nobody reads it back (None where no view was made, as for a
sweep's many games: a listener that needs it reads that version from the database)."""


class Changes:
    """Games as kept in memory, each change committed and then announced to the listeners."""

    def __init__(self, database: Database, deadlines: Deadlines) -> None:
        self.store = GameStore(database)
        self.deadlines = deadlines
        self.listeners: list[ChangeListener] = []

    @property
    def snapshots(self) -> Snapshots:
        """The games kept in memory (the store's)."""
        return self.store.snapshots

    def snapshot(self, transaction: Reading | Editing, game_id: str) -> Snapshot:
        """The game as the transaction sees it, or 404."""
        try:
            return transaction.snapshot(game_id)
        except NoSuchGame:
            raise not_found() from None

    def record(self, editing: Editing, game_id: str) -> GameRecord:
        """The game's records with its seats, to change in ``editing``, or 404."""
        try:
            return editing.record(game_id)
        except NoSuchGame:
            raise not_found() from None

    def committed(self, snapshot: Snapshot) -> GameView:
        """Keep a change's snapshot once it is committed and tell the listeners; its view."""
        self.store.keep(snapshot)
        view = self.view(snapshot)
        if snapshot.scored and view.status == GameStatus.FINISHED:
            metrics.game_finished()  # the version that scored the last box
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
        30,000 logged actions took a second.
        """
        with self.store.editing() as editing:
            kept = self.snapshot(editing, game_id)
            record = self.record(editing, game_id)
            change(record)
            snapshot = editing.bump(kept, record)
        return self.committed(snapshot)


def not_found() -> NotFoundError:
    """The refusal of a game that does not exist."""
    return NotFoundError("not_found")
