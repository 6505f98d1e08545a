"""The quick match: players with nobody to invite wait together, and a table starts for them.

A browser enters with a name (and its seed for the dice) and holds a secret from then on (a
cookie), whose hash is its entry in the queue, kept in the database so that every worker
sees the same queue. Each look of a waiting page tries to make a table: at once for four,
or for two or three once the first of them has waited ``wait_seconds``. The table is a game
of its own with the entries' secrets as its seats' (seat order: first come, first), a turn
timer of :data:`TURN_SECONDS` so that no stranger can stall it, started by the server. A
player alone when the wait ends is offered a computer opponent or to wait again. An entry
whose page stopped asking is neither matched nor kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from app import fairness as dice_fairness
from app.rules import MAX_PLAYERS
from app.service import fairness
from app.service.clock import as_utc, now
from app.service.errors import ConflictError, ForbiddenError
from app.service.lobby import PUBLIC_TURN_SECONDS, Lobby
from app.service.seats import clean_name, hash_secret, new_game_id, new_secret, same_name
from app.service.views import GameView
from app.store.matching import FORGET_AFTER, MatchQueue, OpenTable, Waiting, open_tables
from app.store.models import GameRecord, GameStatus, PlayerRecord

TURN_SECONDS = PUBLIC_TURN_SECONDS
"""Every table of strangers has this turn timer."""
TABLE = 4
"""A table starts at once with this many."""
FRESH = timedelta(seconds=5)
"""An entry is matched only if its page asked this recently (the page asks every second)."""
LISTED = 20
"""Public tables the home page lists at most."""
MAX_WAITING = 1000
"""Entries waiting in the queue at most; beyond, a new one is refused (409 ``queue_full``).
The matched ones, kept until forgotten, are bounded by the tables made in that time."""


@dataclass(frozen=True)
class MatchStatus:
    """What a waiting page shows."""

    waiting: int
    """Players waiting now, this one included."""
    seconds_left: float
    """Before this player's wait ends."""
    game_id: str | None
    """The game this player was matched into; None while waiting."""

    @property
    def alone(self) -> bool:
        """The wait ended with nobody else: offer a computer, or to wait again."""
        return self.game_id is None and self.waiting <= 1 and self.seconds_left <= 0


class QuickMatch:
    """The queue and the tables made of it."""

    def __init__(self, lobby: Lobby, queue: MatchQueue, *, wait_seconds: float) -> None:
        self.lobby = lobby
        self.queue = queue
        self.wait = timedelta(seconds=wait_seconds)

    def enter(
        self,
        name: str,
        client_seed: str | None,
        person_id: str | None = None,
        *,
        two_only: bool = False,
        language: str | None = None,
    ) -> str:
        """Wait for a table as ``name`` (the player ``person_id``, if known), of two players
        only with ``two_only``, from a page in ``language``; the secret the browser then holds."""
        name = clean_name(name)
        seed = fairness.client_seed(client_seed)
        if self.queue.waiting_count() >= MAX_WAITING:
            raise ConflictError("queue_full")
        secret = new_secret()
        most = 2 if two_only else TABLE
        self.queue.enter(hash_secret(secret), name, seed, now(), person_id, most, language)
        self.try_match()
        return secret

    def status(self, secret: str | None, *, again: bool = False) -> MatchStatus:
        """The wait of the browser holding ``secret`` (seen now; begun anew with ``again``),
        after trying to make a table. 403 for no entry (never entered, or dropped)."""
        if not secret or self.queue.look(hash_secret(secret), now(), again=again) is None:
            raise ForbiddenError("not_waiting")
        self.try_match()
        moment = now()
        entry = self.queue.look(hash_secret(secret), moment)
        if entry is None:
            raise ForbiddenError("not_waiting")
        waiting = len(self.queue.waiting_since(moment - FRESH))
        left = (self.wait - (moment - as_utc(entry.joined_at))).total_seconds()
        return MatchStatus(waiting=waiting, seconds_left=max(left, 0.0), game_id=entry.game_id)

    def leave(self, secret: str | None) -> None:
        """Stop waiting (or forget a table taken up): the entry goes."""
        if secret:
            self.queue.leave(hash_secret(secret))

    def try_match(self) -> str | None:
        """Make a table of the players waiting, if it is time; its game's id (started)."""
        moment = now()

        def choose(entries: list[Waiting]) -> list[Waiting]:
            table = gather(entries)
            full = len(table) == min((entry.most for entry in table), default=0)
            if len(table) >= 2 and (full or moment - as_utc(table[0].joined_at) >= self.wait):
                return table
            return []

        game_id = self.queue.match(
            moment - FRESH, choose, self._table, forget_before=moment - FORGET_AFTER
        )
        if game_id is not None:
            self.lobby.start_matched(game_id)
        return game_id

    def open_tables(self) -> list[OpenTable]:
        """The public tables waiting or in play, newest first (:data:`LISTED` at most)."""
        return open_tables(self.queue.database, LISTED)

    def play_the_computer(self, secret: str | None) -> tuple[GameView, str]:
        """A player alone at the end of the wait plays a computer instead: a new game of
        their own with one computer player, started; its view and the player's secret there."""
        if not secret:
            raise ForbiddenError("not_waiting")
        entry = self.queue.look(hash_secret(secret), now())
        if entry is None or entry.game_id is not None:
            raise ForbiddenError("not_waiting")
        self.queue.leave(hash_secret(secret))
        view, seat = self.lobby.create(
            entry.name,
            turn_seconds=TURN_SECONDS,
            person_id=entry.person_id,
            language=entry.language,
        )
        self.lobby.add_computer(view.id, seat)
        return self.lobby.start(view.id, seat, client_seed=entry.client_seed), seat

    def _table(self, chosen: list[Waiting]) -> GameRecord:
        server_seed = self.lobby.dice.new_server_seed()  # the one source (tests swap it)
        record = GameRecord(
            id=new_game_id(),
            status=GameStatus.WAITING.value,
            turn_seconds=TURN_SECONDS,
            public=True,
            language=chosen[0].language,  # the first to come: the table's first player
            server_seed=server_seed.hex() if server_seed is not None else None,
            dice_scheme=dice_fairness.SCHEME if server_seed is not None else None,
        )
        for entry in chosen[:MAX_PLAYERS]:
            record.players.append(
                PlayerRecord(
                    seat=len(record.players),
                    name=_distinct(entry.name, [player.name for player in record.players]),
                    secret_hash=entry.secret_hash,
                    client_seed=entry.client_seed,
                    person_id=entry.person_id,
                )
            )
        return record


def gather(entries: list[Waiting]) -> list[Waiting]:
    """The table the first waiting would sit at, first come first: each next one joins if
    the table then holds no more than every one at it wants (two for "two players only",
    else four); one who wants fewer than are seated already waits for the next table."""
    table: list[Waiting] = []
    for entry in entries:
        if len(table) + 1 <= min([entry.most, *(seated.most for seated in table)]):
            table.append(entry)
        if table and len(table) == min(seated.most for seated in table):
            break
    return table


def _distinct(name: str, taken: list[str]) -> str:
    """``name``, or ``name (2)``, ``(3)``…: strangers may share a name, seats of a game not."""
    number, candidate = 1, name
    while any(same_name(candidate, other) for other in taken):
        number += 1
        suffix = f" ({number})"
        candidate = name[: 32 - len(suffix)] + suffix
    return candidate
