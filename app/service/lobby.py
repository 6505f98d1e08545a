"""The lobby: creating a game, seating people and computers, starting, and the rematch."""

from __future__ import annotations

import secrets
from collections.abc import Callable

from app.service.errors import ConflictError, ForbiddenError, InvalidError
from app.service.records import (
    TURN_TIMERS,
    clean_name,
    hash_secret,
    load_game,
    new_secret,
    now,
    require_host,
    require_waiting,
    seat_of,
)
from app.service.views import GameView
from app.store.database import Database
from app.store.log import replay
from app.store.models import GameRecord, GameStatus, PlayerRecord
from app.store.snapshots import Snapshots, snapshot_of

ChangeListener = Callable[[str, int], None]
"""Told ``(game_id, version)`` after every committed change."""


class Lobby:
    """Games before and between play. Every change is one write transaction, then announced."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.listeners: list[ChangeListener] = []
        self.snapshots = Snapshots()

    def create(self, name: str, *, turn_seconds: int | None = None) -> tuple[GameView, str]:
        """A waiting game with ``name`` as host in seat 0, and the host's secret."""
        name = clean_name(name)
        if turn_seconds not in TURN_TIMERS:
            raise InvalidError("invalid_timer", "the turn timer is off, 30, 60 or 120 seconds")
        secret = new_secret()
        with self.database.writing() as session:
            record = GameRecord(id=secrets.token_urlsafe(8), turn_seconds=turn_seconds)
            record.players.append(PlayerRecord(seat=0, name=name, secret_hash=hash_secret(secret)))
            session.add(record)
            session.flush()
            snapshot = snapshot_of(record, replay(record), logged=0)
        self.snapshots.keep(snapshot)
        view = GameView.of(snapshot.record, snapshot.state)
        self._changed(view)
        return view, secret

    def join(self, game_id: str, name: str) -> tuple[GameView, str]:
        """Seat a new player in a waiting game; 409 once it has started or is full."""
        name = clean_name(name)
        secret = new_secret()

        def seat(record: GameRecord) -> None:
            require_waiting(record, "join")
            record.players.append(
                PlayerRecord(seat=len(record.players), name=name, secret_hash=hash_secret(secret))
            )

        return self._change_lobby(game_id, seat), secret

    def add_computer(self, game_id: str, secret: str | None) -> GameView:
        """The host adds a computer player while the game waits."""

        def seat(record: GameRecord) -> None:
            require_host(record, secret)
            require_waiting(record, "add a player to")
            number = sum(player.computer for player in record.players) + 1
            record.players.append(
                PlayerRecord(seat=len(record.players), name=f"Computer {number}", computer=True)
            )

        return self._change_lobby(game_id, seat)

    def start(self, game_id: str, secret: str | None) -> GameView:
        """The host starts the game."""

        def begin(record: GameRecord) -> None:
            require_host(record, secret)
            if record.status != GameStatus.WAITING:
                raise ConflictError("already_started", "the game has already started")
            record.status = GameStatus.PLAYING.value
            record.started_at = record.turn_started_at = now()

        return self._change_lobby(game_id, begin)

    def rematch(self, game_id: str, secret: str | None) -> str:
        """A new game with the same players, started at once; its id. Any seat may ask, once:
        later requests get the same rematch."""
        with self.database.writing() as session:
            record = load_game(session, game_id)
            if seat_of(record, secret) is None:
                raise ForbiddenError("not_your_seat", "you do not hold a seat in this game")
            if record.status != GameStatus.FINISHED:
                raise ConflictError("not_finished", "a rematch follows a finished game")
            if record.rematch_id is not None:
                return record.rematch_id
            rematch = GameRecord(
                id=secrets.token_urlsafe(8),
                status=GameStatus.PLAYING.value,
                turn_seconds=record.turn_seconds,
            )
            rematch.started_at = rematch.turn_started_at = now()
            for player in record.players:
                rematch.players.append(
                    PlayerRecord(
                        seat=player.seat,
                        name=player.name,
                        computer=player.computer,
                        secret_hash=player.secret_hash,
                    )
                )
            session.add(rematch)
            record.rematch_id = rematch.id
            record.version += 1
            session.flush()
            view = GameView.of(record, replay(record))
        self._changed(view)
        return rematch.id

    def _change_lobby(self, game_id: str, change: Callable[[GameRecord], None]) -> GameView:
        with self.database.writing() as session:
            record = load_game(session, game_id)
            change(record)
            record.version += 1
            session.flush()
            snapshot = snapshot_of(record, replay(record))
        self.snapshots.keep(snapshot)
        view = GameView.of(snapshot.record, snapshot.state)
        self._changed(view)
        return view

    def _changed(self, view: GameView) -> None:
        for listener in self.listeners:
            listener(view.id, view.version)
