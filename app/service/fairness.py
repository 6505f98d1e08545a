"""Verifiable dice in the service: what a game shows of its seeds, each roll's seeds, the log.

The server seed leaves the service only through :class:`Fairness`, and only once the game
is no longer waiting or being played (finished, or abandoned).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from app import fairness
from app.rules import DICE_COUNT, Action, Dice, Game, Roll
from app.service.dice import RollSeeds
from app.service.errors import InvalidError
from app.store.models import GameStatus
from app.store.rows import GameRow
from app.store.snapshots import Snapshot

CLIENT_SEED_BYTES = 16
"""A client seed the server makes for a seat that gave none: 16 bytes in hex, as a browser's."""

_SECRET_WHILE = (GameStatus.WAITING, GameStatus.PLAYING)


@dataclass(frozen=True)
class ClientSeed:
    seat: int
    seed: str | None
    """None until the seat has given one (the host gives it with the start)."""


@dataclass(frozen=True)
class Fairness:
    """What anyone may see of a game's dice seeds."""

    commitment: str | None
    """The SHA-256 of the server seed (hex); None for a game whose dice are not verifiable."""
    client_seeds: tuple[ClientSeed, ...]
    """The human seats' seeds, in seat order."""
    server_seed: str | None
    """The server seed in hex, once the game is over; None before, and for ever when the
    game's dice are not verifiable."""
    scheme: int = fairness.SCHEME
    """How the seeds make each roll's message (:func:`app.fairness.roll_message`)."""

    @property
    def verifiable(self) -> bool:
        return self.commitment is not None

    @classmethod
    def of(cls, record: GameRow) -> Fairness:
        seed = record.server_seed
        return cls(
            commitment=fairness.commitment(bytes.fromhex(seed)) if seed else None,
            client_seeds=tuple(
                ClientSeed(player.seat, player.client_seed)
                for player in record.players
                if not player.computer
            ),
            server_seed=seed if record.status not in _SECRET_WHILE else None,
            scheme=record.dice_scheme or 1,
        )


def client_seed(given: str | None) -> str:
    """A seat's client seed: the one given (422 unless 1 to 64 printable ASCII characters), or
    a new random one."""
    if given is None:
        return secrets.token_hex(CLIENT_SEED_BYTES)
    if not fairness.is_client_seed(given):
        raise InvalidError("invalid_client_seed")
    return given


def next_roll_seeds(snapshot: Snapshot) -> RollSeeds | None:
    """What the game's next roll is dealt from; None for a game whose dice are not verifiable."""
    record = snapshot.record
    if record.server_seed is None:
        return None
    return RollSeeds(
        server_seed=bytes.fromhex(record.server_seed),
        game_id=record.id,
        number=snapshot.rolls,
        client_seeds=tuple(
            (player.seat, player.client_seed or "")
            for player in record.players
            if not player.computer
        ),
        scheme=record.dice_scheme or 1,
    )


@dataclass(frozen=True)
class LoggedRoll:
    """One roll of a game, as a verifier needs it."""

    number: int
    seat: int
    turn: int
    """The turn it was made in, counted from 0 over the whole game (seat = turn % seats)."""
    held: tuple[bool, ...]
    """The dice held when it was rolled (none on a turn's first roll)."""
    dice: Dice
    """The five dice after it."""


def roll_log(players: int, actions: Iterable[Action]) -> list[LoggedRoll]:
    """Every roll of a game with ``players`` seats whose log is ``actions``, in order."""
    state = Game.new(players)
    rolls: list[LoggedRoll] = []
    for action in actions:
        if isinstance(action, Roll):
            assert state.seat is not None
            held = state.turn.held if state.turn.dice is not None else (False,) * DICE_COUNT
            turn = state.scored_turns
            rolls.append(LoggedRoll(len(rolls), state.seat, turn, held, action.dice))
        state = state.apply(action)
    return rolls
