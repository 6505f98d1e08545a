"""The game service, the one door of the web: the lobby, play and the rematch side by side,
composed over one path of change (:mod:`app.service.changes`), and reading a game."""

from __future__ import annotations

from app.analysis.review import PlayerReview
from app.service import reviews, stats
from app.service.changes import Changes
from app.service.deadlines import DEFAULT_DEADLINES, Deadlines
from app.service.dice import DiceSource
from app.service.fairness import LoggedRoll, roll_log
from app.service.lobby import Lobby
from app.service.measured import measured
from app.service.play import MAX_HOLDS_PER_TURN, Play
from app.service.rematch import Rematches
from app.service.seats import seat_of
from app.service.server_steps import ServerSteps
from app.service.views import GameView
from app.store import reports
from app.store.database import Database
from app.strategy import StrategyProvider


class GameService:
    """Every use case of a game. The lobby's and play's are their own bound methods, only
    counted and timed for the operators: a move goes from the route to :class:`Play` and
    :class:`Changes`, nowhere else."""

    def __init__(
        self,
        database: Database,
        dice: DiceSource,
        strategy: StrategyProvider,
        deadlines: Deadlines = DEFAULT_DEADLINES,
        *,
        max_holds_per_turn: int = MAX_HOLDS_PER_TURN,
    ) -> None:
        self.database = database
        self.deadlines = deadlines
        self.changes = Changes(database, deadlines)
        self.listeners = self.changes.listeners
        self.lobby = Lobby(self.changes, dice)
        self.play = Play(self.changes, dice, strategy, max_holds_per_turn=max_holds_per_turn)
        self.steps = ServerSteps(self.changes, dice, strategy, self.play)
        self.rematches = Rematches(self.changes, dice)

        # Before play: create, seat, start (each counted and timed, app/metrics.py).
        self.create = measured("create", self.lobby.create)
        self.join = measured("join", self.lobby.join)
        self.add_computer = measured("add_computer", self.lobby.add_computer)
        self.remove_seat = measured("remove_seat", self.lobby.remove_seat)
        self.set_client_seed = measured("client_seed", self.lobby.set_client_seed)
        self.start = measured("start", self.lobby.start)
        self.move_seat = measured("move_seat", self.lobby.move_seat)
        # A seat's actions.
        self.roll = measured("roll", self.play.roll)
        self.set_hold = measured("hold", self.play.set_hold)
        self.score = measured("score", self.play.score)
        self.auto = measured("auto", self.play.auto)
        self.set_hints = measured("hints", self.play.set_hints)
        self.advice = self.play.advice
        # The server's own steps, for the scheduler.
        self.play_due = self.steps.play_due
        self.play_for_computer = self.steps.play_for_computer
        self.due_at = self.steps.due_at
        self.due_games = self.steps.due_games
        self.overdue_games = self.steps.overdue_games
        self.load_games = self.steps.load_games

    @property
    def dice(self) -> DiceSource:
        """The one dice source, shared by every part that rolls or seeds dice."""
        return self.play.dice

    @dice.setter
    def dice(self, source: DiceSource) -> None:
        # A test swaps the source after the app is built: every part must roll from it.
        self.lobby.dice = self.play.dice = self.steps.dice = self.rematches.dice = source

    @property
    def strategy(self) -> StrategyProvider:
        """The optimal player, shared by play (hints, the computer's box) and reviews."""
        return self.play.strategy

    @strategy.setter
    def strategy(self, provider: StrategyProvider) -> None:
        self.play.strategy = self.steps.strategy = provider

    def get(self, game_id: str) -> GameView:
        """The game as it is now, or 404."""
        with self.changes.store.reading() as reading:
            snapshot = self.changes.snapshot(reading, game_id)
        return self.changes.view(snapshot)

    def roll_log(self, game_id: str) -> tuple[GameView, list[LoggedRoll]]:
        """The game as it is now and every roll made in it, for anyone to verify; or 404."""
        with self.changes.store.reading() as reading:
            # The log first: its read begins the transaction in which the version is read.
            actions = reading.actions(game_id)
            snapshot = self.changes.snapshot(reading, game_id)
        view = GameView.of(snapshot.record, snapshot.state)
        if view.is_waiting:
            return view, []
        return view, roll_log(len(snapshot.record.players), actions)

    def seat_of(self, game_id: str, secret: str | None) -> int | None:
        """The seat that ``secret`` holds in the game, if any."""
        if not secret:
            return None
        with self.changes.store.reading() as reading:
            return seat_of(self.changes.snapshot(reading, game_id).record, secret)

    def database_problem(self) -> str | None:
        """Why changes cannot be saved now (disk full, read-only, locked), or None.
        Waits a few tens of milliseconds at most; call it off the event loop."""
        return self.database.problem()

    def log_bytes(self) -> int:
        """The size of the database's write-ahead log (kept small by the checkpointer)."""
        return self.database.wal_bytes()

    def review(self, game_id: str) -> tuple[GameView, tuple[PlayerReview, ...]]:
        """The finished game and its review; 409 before the end, 503 while the table builds."""
        return reviews.game_review(self.database, self.strategy, game_id)

    def games_by_status(self) -> dict[str, int]:
        """How many games the database holds in each status, for the operators' metrics."""
        return reports.games_by_status(self.database)

    def statistics(self) -> stats.Statistics:
        """Figures over every finished game."""
        return stats.statistics(self.database)
