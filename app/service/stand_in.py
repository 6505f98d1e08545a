"""Handing an absent player's seat to the computer, and the player taking it back.

When the player to move has had no page open for a while, any other seated player may let
the computer play that seat (the scheduler then plays it as a computer seat) until its player
opens the game again. Both hand-overs are logged in the game's action log as entries that
the rules' replay skips, so replay stays deterministic.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Protocol

from app.service.clock import as_utc, now
from app.service.errors import ConflictError, ForbiddenError, InvalidError
from app.service.games import GameService
from app.service.measured import counted
from app.service.seats import seat_of
from app.service.status import require_playing
from app.service.views import GameView
from app.store.game_store import last_played, log_entry, newest_entry
from app.store.models import ActionKind, GameRecord, GameStatus


class SeatPresence(Protocol):
    """Who has a game open (``app/live/presence.py``), as the hand-over asks it."""

    absent_seconds: float

    def absent_for(self, game_id: str, seat: int) -> float | None:
        """Seconds since the seat last had the game open; None while it has."""

    def others_known(self) -> bool:
        """Whether the other workers' streams are known (else an absence may be theirs)."""


class StandIns:
    """The computer standing in for absent players, decided from who has the game open."""

    def __init__(self, games: GameService, presence: SeatPresence) -> None:
        self.games = games
        self.presence = presence

    @counted("hand_over")
    def hand_over(self, game_id: str, secret: str | None, seat: int) -> GameView:
        """Let the computer play ``seat`` (the player to move, away long enough) for now."""

        def hand(record: GameRecord) -> None:
            acting = seat_of(record, secret)
            if not 0 <= seat < len(record.players):
                raise InvalidError("invalid_seat")
            if acting is None:
                raise ForbiddenError("not_your_seat")
            require_playing(record)
            player = record.players[seat]
            if seat == acting:
                raise ConflictError("own_seat")
            if player.computer or player.stand_in:
                raise ConflictError("computer_seat")
            # Read while this write holds the game: the kept state, no replay of the log.
            if self.games.get(game_id).turn != seat:
                raise ConflictError("not_to_move")
            absent = self.presence.absent_for(game_id, seat)
            if absent is None or _acted_lately(record, seat, self.presence.absent_seconds):
                raise ConflictError("present")
            if absent < self.presence.absent_seconds:
                raise ConflictError("not_away_long")
            if not self.presence.others_known():
                raise ConflictError("presence_unknown")
            player.stand_in = True
            # The scheduler plays the seat from now on, at a computer's pace.
            pace = self.games.deadlines.pace_of(record.computer_pace)
            record.due_at = now() + timedelta(seconds=pace)
            _log(record, seat, ActionKind.STAND_IN, by=acting)

        view = self.games.changes.change_records(game_id, hand)
        # Had the player opened the game while this was written, their stream may have
        # looked for a stand-in before there was one: the seat is theirs at once.
        if self.presence.absent_for(game_id, seat) is None:
            return self._give_back(game_id, seat) or view
        return view

    def take_back(self, game_id: str, secret: str | None) -> GameView | None:
        """The player of ``secret`` is back (call it once their stream is counted): their
        seat is theirs again. None if the computer was not standing in for them (nothing is
        written then: most page loads)."""
        seat = self.games.seat_of(game_id, secret)
        if seat is None or not self.games.get(game_id).players[seat].stand_in:
            return None
        return self._give_back(game_id, seat)

    def _give_back(self, game_id: str, seat: int) -> GameView | None:
        def back(record: GameRecord) -> None:
            player = record.players[seat]
            if not player.stand_in:  # another tab of theirs took it back first
                raise _NothingToDo
            player.stand_in = False
            # The player's own deadlines again (a turn timer, a box to choose), from now;
            # or, when another seat is to move, that seat's (a computer's step stays due).
            started = record.turn_started_at
            state = self.games.get(game_id).state
            to_move = None if state.seat is None else record.players[state.seat]
            record.due_at = self.games.deadlines.next_due(
                state,
                playing=record.status == GameStatus.PLAYING,
                computer_to_move=to_move is not None and (to_move.computer or to_move.stand_in),
                turn_seconds=record.turn_seconds,
                turn_started_at=as_utc(started) if started else None,
                moment=now(),
                pace=self.games.deadlines.pace_of(record.computer_pace),
            )
            _log(record, seat, ActionKind.RETURN, by=seat)

        try:
            return self.games.changes.change_records(game_id, back)
        except _NothingToDo:
            return None


class _NothingToDo(Exception):
    """The seat was not handed over: no write."""


def _acted_lately(record: GameRecord, seat: int, seconds: float) -> bool:
    """Whether the seat's player made an action of theirs less than ``seconds`` ago: one who
    plays (through the API, say) with no stream open is at the table all the same, whichever
    worker served them, and at the start of their turn too (their last score, before the
    others' turns, counts)."""
    newest = newest_entry(record)
    if (
        newest is not None
        and newest.seat == seat
        and not newest.by_computer
        and not newest.reason
        and newest.kind != ActionKind.STAND_IN
    ):
        # Theirs is the newest entry, so the game's row was last changed by it (precise).
        return (now() - as_utc(record.updated_at)).total_seconds() < seconds
    played = last_played(record, seat)  # the database's clock (whole seconds on SQLite)
    return played is not None and (now() - as_utc(played)).total_seconds() < seconds


def _log(record: GameRecord, seat: int, kind: ActionKind, *, by: int) -> None:
    """Log a hand-over after the game's newest action (the log itself is never loaded: a
    game may have a long one)."""
    log_entry(record, seat, kind, {"by": by})
