"""The lobby: creating a game, seating people and computers, moving a seat, starting."""

from __future__ import annotations

from dataclasses import replace

from app.fairness import SCHEME
from app.rules import Game
from app.service import fairness
from app.service.changes import Changes
from app.service.clock import now
from app.service.deadlines import PACES
from app.service.dice import DiceSource
from app.service.errors import ConflictError, ForbiddenError, InvalidError
from app.service.rematch import seat_order
from app.service.seats import (
    clean_name,
    hash_secret,
    new_game_id,
    new_secret,
    require_free_name,
    require_host,
    same_name,
    seat_of,
    seat_of_resume_token,
)
from app.service.status import require_not_abandoned, require_waiting
from app.service.views import GameView
from app.store.game_store import remove_player
from app.store.models import GameRecord, GameStatus, PlayerRecord
from app.store.rows import GameRow, SeatRow

TURN_TIMERS = (None, 30, 60, 120)
PUBLIC_TURN_SECONDS = 60
"""Every game open to strangers has a turn timer, so that no one can stall it."""


class Lobby:
    """Games before play. Every change is one write transaction, then announced."""

    def __init__(self, changes: Changes, dice: DiceSource) -> None:
        self.changes = changes
        self.dice = dice

    def create(
        self,
        name: str,
        *,
        turn_seconds: int | None = None,
        computer_pace: str | None = None,
        public: bool = False,
        person_id: str | None = None,
        language: str | None = None,
    ) -> tuple[GameView, str]:
        """A waiting game with ``name`` as host in seat 0, and the host's secret; its turn
        timer and its computers' pace (None: normal; ``fast``). A ``public`` game is listed
        for anyone to join or watch, with a turn timer always (:data:`PUBLIC_TURN_SECONDS`
        if none is asked); ``person_id`` is the host's player, if known; ``language`` the one
        the host plays in (listed with a public game)."""
        name = clean_name(name)
        if turn_seconds not in TURN_TIMERS:
            raise InvalidError("invalid_timer")
        if computer_pace not in PACES:
            raise InvalidError("invalid_pace")
        if public and turn_seconds is None:
            turn_seconds = PUBLIC_TURN_SECONDS
        secret = new_secret()
        moment = now()
        game_id = new_game_id()
        server_seed = self.dice.new_server_seed()
        host = SeatRow(
            game_id=game_id,
            seat=0,
            name=name,
            computer=False,
            secret_hash=hash_secret(secret),
            final_total=None,
            hints=False,
            used_hints=False,
            client_seed=None,  # given with the start, once the commitment has been shown
            stand_in=False,
            rematch=None,
            moved_hash=None,
            person_id=person_id,
            pentas=None,
        )
        record = GameRow(
            id=game_id,
            status=GameStatus.WAITING.value,
            version=1,
            turn_seconds=turn_seconds,
            rematch_id=None,
            server_seed=server_seed.hex() if server_seed is not None else None,
            dice_scheme=SCHEME if server_seed is not None else None,
            closed_reason=None,
            previous_id=None,
            computer_pace=computer_pace,
            public=public,
            started_at=None,
            finished_at=None,
            turn_started_at=None,
            due_at=None,
            created_at=moment,
            updated_at=moment,
            players=(host,),
            language=language,
        )
        # Core statements, as for every move: a game is created for every game played,
        # and through an ORM session that cost as much as a dozen moves.
        with self.changes.store.writing() as writing:
            snapshot = writing.insert(record, Game.new(1))
        return self.changes.committed(snapshot), secret

    def join(
        self,
        game_id: str,
        name: str,
        *,
        client_seed: str | None = None,
        person_id: str | None = None,
    ) -> tuple[GameView, str]:
        """Seat a new player in a waiting game; 409 once it has started or is full.

        The player's ``client_seed`` (else one made here) goes into every roll of the game;
        ``person_id`` is the player, if known (a player has one seat in a game: 409 for a
        second).
        """
        name = clean_name(name)
        seed = fairness.client_seed(client_seed)
        secret = new_secret()

        def seat(record: GameRecord) -> None:
            require_waiting(record, "join_started")
            require_free_name(record, name)
            if person_id is not None and any(p.person_id == person_id for p in record.players):
                raise ConflictError("already_seated")
            record.players.append(
                PlayerRecord(
                    seat=len(record.players),
                    name=name,
                    secret_hash=hash_secret(secret),
                    client_seed=seed,
                    person_id=person_id,
                )
            )

        return self.changes.change_records(game_id, seat), secret

    def add_computer(self, game_id: str, secret: str | None) -> GameView:
        """The host adds a computer player while the game waits."""

        def seat(record: GameRecord) -> None:
            require_host(record, secret)
            require_waiting(record, "add_to_started")
            number = sum(player.computer for player in record.players) + 1
            while any(same_name(player.name, f"Computer {number}") for player in record.players):
                number += 1  # a person took that name
            record.players.append(
                PlayerRecord(seat=len(record.players), name=f"Computer {number}", computer=True)
            )

        return self.changes.change_records(game_id, seat)

    def remove_seat(self, game_id: str, secret: str | None, seat: int) -> GameView:
        """The host removes a computer or a player from the lobby (never their own seat):
        the seats after it move up one. A person removed only watches then, and may join
        again."""

        def remove(record: GameRecord) -> None:
            require_host(record, secret)
            require_not_abandoned(record)
            if record.status != GameStatus.WAITING:
                raise ConflictError("already_started", "remove_started")
            if not 0 <= seat < len(record.players):
                raise InvalidError("invalid_seat")
            if seat == 0:
                raise ConflictError("remove_host")
            remove_player(record, seat)

        return self.changes.change_records(game_id, remove)

    def set_client_seed(self, game_id: str, secret: str | None, client_seed: str) -> GameView:
        """Change one's own client seed while the game waits; 409 once it has started."""
        seed = fairness.client_seed(client_seed)

        def change(record: GameRecord) -> None:
            seat = seat_of(record, secret)
            if seat is None:
                raise ForbiddenError("not_your_seat")
            if record.status != GameStatus.WAITING:
                raise ConflictError("seeds_fixed")
            record.players[seat].client_seed = seed

        return self.changes.change_records(game_id, change)

    def start(
        self, game_id: str, secret: str | None, *, client_seed: str | None = None
    ) -> GameView:
        """The host starts the game, giving the host's ``client_seed`` (else the one the host
        set while waiting, else one made here).

        From now on the seeds are fixed: a second start is refused (409) and changes none."""
        return self._start(game_id, secret, client_seed=client_seed, as_server=False)

    def start_matched(self, game_id: str) -> GameView:
        """The server starts a game it made of a quick match (no host to start it)."""
        return self._start(game_id, None, client_seed=None, as_server=True)

    def _start(
        self, game_id: str, secret: str | None, *, client_seed: str | None, as_server: bool
    ) -> GameView:
        if client_seed is not None:
            fairness.client_seed(client_seed)  # 422 before anything else
        with self.changes.store.writing() as writing:
            snapshot = self.changes.snapshot(writing, game_id)
            record = snapshot.record
            if not as_server:
                require_host(record, secret)
            require_not_abandoned(record)
            if record.status != GameStatus.WAITING:
                raise ConflictError("already_started")
            moment = now()
            changes: dict[str, object] = {
                "version": record.version + 1,
                "status": GameStatus.PLAYING.value,
                "started_at": moment,
                "turn_started_at": moment,
                "updated_at": moment,
            }
            # A rematch: the seats as they were, and the next one starts (rematch.seat_order).
            previous = writing.seat_names(record.previous_id) if record.previous_id else []
            order = seat_order(record.players, previous)
            host = order.index(0)
            if order != sorted(order):
                snapshot = writing.set_seat_order(snapshot, order)
                record = snapshot.record
            state = Game.new(len(record.players))
            changes["due_at"] = self.changes.deadlines.next_due(
                state,
                playing=True,
                computer_to_move=record.players[0].computer,
                turn_seconds=record.turn_seconds,
                turn_started_at=moment,
                moment=moment,
                pace=self.changes.deadlines.pace_of(record.computer_pace),
            )
            snapshot = writing.append(snapshot, host, [], state, changes, reason=None)
            seeds = _seeds_to_fix(record, host, client_seed)
            snapshot = writing.set_client_seeds(snapshot, seeds)
            if host != 0:  # seats moved: no other worker can follow this from a message
                snapshot = replace(snapshot, appended=None)
        return self.changes.committed(snapshot)

    def move_seat(self, game_id: str, token: str, key: str) -> tuple[GameView, str]:
        """Move the seat whose resume link carries ``token`` (:func:`resume_token` under
        ``key``) to another device: a new secret for it, the old one retired (its browser
        then watches, and is told why), and with it the link. 403 for no seat."""
        fresh = new_secret()

        def rotate(record: GameRecord) -> None:
            hashes = [player.secret_hash for player in record.players]
            seat = seat_of_resume_token(game_id, hashes, key, token)
            if seat is None:
                raise ForbiddenError("not_your_seat")
            player = record.players[seat]
            player.moved_hash = player.secret_hash
            player.secret_hash = hash_secret(fresh)

        return self.changes.change_records(game_id, rotate), fresh


def _seeds_to_fix(record: GameRow, host: int, host_seed: str | None) -> dict[int, str]:
    """The client seeds to set at the start: the host's (in seat ``host``) if given; a new
    one for every person still without (the host who gave none, a seat from before the
    verifiable dice)."""
    seeds = {host: host_seed} if host_seed is not None else {}
    for player in record.players:
        if not player.computer and player.client_seed is None and player.seat not in seeds:
            seeds[player.seat] = fairness.client_seed(None)
    return seeds
