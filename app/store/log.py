"""The action log: rules actions to rows and back, and replaying a game from its rows."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.rules import Action, Box, Game, Hold, Roll, Score
from app.store.models import ActionKind, ActionRecord, GameRecord, GameStatus


def action_row(action: Action) -> tuple[ActionKind, dict[str, Any]]:
    """The stored kind and payload of ``action``."""
    match action:
        case Roll(dice):
            return ActionKind.ROLL, {"dice": list(dice)}
        case Hold(held):
            return ActionKind.HOLD, {"held": list(held)}
        case Score(box):
            return ActionKind.SCORE, {"box": box.value}
    raise TypeError(f"not an action: {action!r}")


def row_action(row: ActionRecord) -> Action:
    """The rules action a stored row records."""
    return stored_action(row.kind, row.payload)


def stored_action(kind: str, payload: dict[str, Any]) -> Action:
    """The rules action of a stored kind and payload."""
    match ActionKind(kind):
        case ActionKind.ROLL:
            return Roll(tuple(payload["dice"]))
        case ActionKind.HOLD:
            return Hold(tuple(payload["held"]))
        case ActionKind.SCORE:
            return Score(Box(payload["box"]))


def replay(record: GameRecord) -> Game:
    """The game's state, rebuilt from its seats and its action log."""
    return replay_log(
        record.status, len(record.players), (row_action(row) for row in record.actions)
    )


def replay_log(status: str, players: int, actions: Iterable[Action]) -> Game:
    """The state of a game with ``status`` and ``players`` seats after ``actions``."""
    if status == GameStatus.WAITING:
        return Game.new(max(players, 1))
    return Game.replay(players, actions)
