"""The action log: rules actions to rows and back, and replaying a game from its rows."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.rules import Action, Box, Game, Hold, Roll, Score
from app.store.models import RULES_KINDS, ActionKind, ActionRecord, GameRecord, GameStatus


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


def is_rules_kind(kind: str) -> bool:
    """Whether a stored kind is a rules action (the others, who plays a seat, replay skips)."""
    return kind in RULES_KINDS


def rules_actions(rows: Iterable[ActionRecord]) -> list[Action]:
    """The rules actions of a game's log rows, in order, without the seat hand-overs."""
    return [row_action(row) for row in rows if is_rules_kind(row.kind)]


def stored_action(kind: str, payload: dict[str, Any]) -> Action:
    """The rules action of a stored kind and payload."""
    match ActionKind(kind):
        case ActionKind.ROLL:
            return Roll(tuple(payload["dice"]))
        case ActionKind.HOLD:
            return Hold(tuple(payload["held"]))
        case ActionKind.SCORE:
            return Score(Box(payload["box"]))
    raise ValueError(f"{kind} is not a rules action")


def replay(record: GameRecord) -> Game:
    """The game's state, rebuilt from its seats and its action log."""
    return replay_log(record.status, len(record.players), rules_actions(record.actions))


def replay_log(status: str, players: int, actions: Iterable[Action]) -> Game:
    """The state of a game with ``status`` and ``players`` seats after ``actions``."""
    if status == GameStatus.WAITING:
        return Game.new(max(players, 1))
    return Game.replay(players, actions)
