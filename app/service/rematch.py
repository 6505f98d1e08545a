"""The rematch after a finished game, as an offer that each player takes up or declines.

A player offers: a new game waits, with them as its host and the computer seats kept. Every
other player sees the offer on the finished game's page and joins (taking a seat in the new
game, held by a new secret of its own: a secret, or a resume link, used up in one game is
worth nothing in the next) or declines. The offerer starts the new game from its lobby
when they like, with whoever joined; its turn timer starts with its first turn, as any game's.
At the start its seats are laid out as they were in the finished game, moved on by one: the
one who sat second starts, so that each rematch another player begins (:func:`seat_order`).
"""

from __future__ import annotations

from collections.abc import Sequence

from app import fairness
from app.rules import MAX_PLAYERS
from app.service.changes import Changes
from app.service.dice import DiceSource
from app.service.errors import ConflictError, ForbiddenError
from app.service.measured import counted
from app.service.seats import hash_secret, new_game_id, new_secret, same_name, seat_of
from app.service.status import require_not_abandoned
from app.service.views import GameView
from app.store.game_store import Editing
from app.store.models import GameRecord, GameStatus, PlayerRecord, RematchAnswer
from app.store.rows import SeatRow


class Rematches:
    """Offers and answers; every change is one write transaction, then announced."""

    def __init__(self, changes: Changes, dice: DiceSource) -> None:
        self.changes = changes
        self.dice = dice

    @counted("rematch")
    def offer(self, game_id: str, secret: str | None) -> tuple[str, str | None]:
        """Offer a rematch of a finished game: the id of the new, waiting game and the
        offerer's secret there. A second offer (by anyone) gets the rematch already offered,
        and no secret, changing nothing."""
        with self.changes.store.editing() as editing:
            kept = self.changes.snapshot(editing, game_id)
            record = self._finished(editing, game_id)
            seat = _seat(record, secret)
            if record.rematch_id is not None:
                return record.rematch_id, None
            offerer = record.players[seat]
            fresh = new_secret()
            # A new game, so new dice: its server seed is committed to from now on, and the
            # people's seeds are given as they join and start (docs/fairness.md).
            server_seed = self.dice.new_server_seed()
            rematch = GameRecord(
                id=new_game_id(),
                status=GameStatus.WAITING.value,
                turn_seconds=record.turn_seconds,
                server_seed=server_seed.hex() if server_seed is not None else None,
                dice_scheme=fairness.SCHEME if server_seed is not None else None,
                previous_id=record.id,
                computer_pace=record.computer_pace,
                public=record.public,  # strangers' rematch is listed and rated as theirs was
                language=record.language,
            )
            rematch.players.append(
                PlayerRecord(
                    seat=0,
                    name=offerer.name,
                    secret_hash=hash_secret(fresh),
                    person_id=offerer.person_id,
                )
            )
            for player in record.players:
                if player.computer:
                    rematch.players.append(
                        PlayerRecord(seat=len(rematch.players), name=player.name, computer=True)
                    )
            editing.add(rematch)
            record.rematch_id = rematch.id
            offerer.rematch = RematchAnswer.OFFERED.value
            changed = [editing.bump(kept, record), editing.created(rematch)]
        for snapshot in changed:
            self.changes.committed(snapshot)
        return rematch.id, fresh

    @counted("rematch_answer")
    def answer(
        self, game_id: str, secret: str | None, *, join: bool
    ) -> tuple[GameView, str | None]:
        """Join the offered rematch (a seat in its lobby) or decline it; the finished game as
        it is then, and the joiner's new secret in the rematch (None: declined). 409 without
        an offer, once the rematch has started or is full, or for a player who has already
        joined."""
        fresh = None
        with self.changes.store.editing() as editing:
            kept = self.changes.snapshot(editing, game_id)
            record = self._finished(editing, game_id)
            player = record.players[_seat(record, secret)]
            if record.rematch_id is None:
                raise ConflictError("no_rematch")
            if player.rematch in (RematchAnswer.OFFERED, RematchAnswer.JOINED):
                raise ConflictError("rematch_joined")
            kept_rematch = self.changes.snapshot(editing, record.rematch_id)
            rematch = self.changes.record(editing, record.rematch_id)
            if join:
                require_not_abandoned(rematch)
                if rematch.status != GameStatus.WAITING:
                    raise ConflictError("already_started")
                if len(rematch.players) >= MAX_PLAYERS:
                    raise ConflictError("full", num=MAX_PLAYERS)
                fresh = new_secret()
                rematch.players.append(
                    PlayerRecord(
                        seat=len(rematch.players),
                        name=player.name,
                        secret_hash=hash_secret(fresh),
                        person_id=player.person_id,
                    )
                )
                player.rematch = RematchAnswer.JOINED.value
                changed = [editing.bump(kept, record), editing.bump(kept_rematch, rematch)]
            else:
                player.rematch = RematchAnswer.DECLINED.value
                changed = [editing.bump(kept, record)]
        views = [self.changes.committed(snapshot) for snapshot in changed]
        return views[0], fresh

    def _finished(self, editing: Editing, game_id: str) -> GameRecord:
        record = self.changes.record(editing, game_id)
        if record.status != GameStatus.FINISHED:
            raise ConflictError("not_finished", "rematch_not_finished")
        return record


def _seat(record: GameRecord, secret: str | None) -> int:
    seat = seat_of(record, secret)
    if seat is None:
        raise ForbiddenError("not_your_seat")
    return seat


def seat_order(players: Sequence[SeatRow], previous: Sequence[tuple[int, str, bool]]) -> list[int]:
    """The seats of a rematch at its start, as ``order[i]`` = the seat whose player sits in
    seat ``i``: the players of the game before (``previous``: its seats' numbers, names and
    whether computers) in that game's order moved on by one, so that who sat second starts
    (and the first moves to the end), then anyone new in the order they joined. A game that
    follows none (``previous`` empty) keeps its seats."""
    count = len(previous)

    def rank(seat: int) -> tuple[int, int]:
        player = players[seat]
        for was, name, computer in previous:
            if computer == player.computer and same_name(name, player.name):
                return (was - 1) % count, seat
        return count, seat

    return sorted(range(len(players)), key=rank)
