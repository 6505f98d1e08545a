"""The action log: rules actions to rows and back, and replaying a game from its rows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.rules import Action, Box, Dice, Game, Hold, Roll, Score
from app.store.models import (
    RULES_KINDS,
    ActionKind,
    ActionRecord,
    GameRecord,
    GameStatus,
    Reason,
)

ACTIVITY_SIZE = 8
"""Recorded boxes a game keeps at hand for its "what just happened" log."""


@dataclass(frozen=True, slots=True)
class ScoreEntry:
    """One box recorded, as the activity log tells it."""

    number: int
    """The action's number in the game's log (the newest action has the log's length)."""
    seat: int
    box: Box
    points: int
    bonus: int
    """The Penta bonus it earned: 0 or 100."""
    reason: Reason | None
    """Why the server recorded it, or None when the player did."""
    dice: Dice | None = field(default=None, compare=False)
    """The dice that were scored (what the log line shows once they have left the table)."""
    kept_open: Box | None = field(default=None, compare=False)
    """The box those dice would have scored most in, had it not been kept open for later:
    the short why of a box that scored less (None when the box chosen scored the most)."""


def score_entry(
    number: int, before: Game, after: Game, box: Box, reason: Reason | None
) -> ScoreEntry:
    """The entry of the score that took the game from ``before`` to ``after``."""
    seat = before.seat
    assert seat is not None
    sheet = after.sheets[seat]
    points = sheet[box]
    assert points is not None
    bonus = sheet.penta_bonus - before.sheets[seat].penta_bonus
    options = before.legal_boxes()
    best = max(options, key=lambda other: options[other].points, default=box)
    kept_open = best if best in options and options[best].points > points else None
    return ScoreEntry(number, seat, box, points, bonus, reason, before.turn.dice, kept_open)


def replay_activity(
    status: str, players: int, rows: Iterable[tuple[str, dict[str, Any], str | None]]
) -> tuple[Game, int, tuple[ScoreEntry, ...]]:
    """The state after the stored ``(kind, payload, reason)`` rows, their count, and the
    newest :data:`ACTIVITY_SIZE` recorded boxes among them. Rows that are not rules actions
    (seat hand-overs) are counted and numbered, not replayed."""
    rows = list(rows)
    if status == GameStatus.WAITING:
        return Game.new(max(players, 1)), len(rows), ()
    return continue_activity(Game.new(players), 0, (), rows)


def continue_activity(
    state: Game,
    logged: int,
    activity: Sequence[ScoreEntry],
    rows: Iterable[tuple[str, dict[str, Any], str | None]],
) -> tuple[Game, int, tuple[ScoreEntry, ...]]:
    """:func:`replay_activity` from a game at ``state`` whose log held ``logged`` entries
    and ``activity``, over the ``rows`` logged after them."""
    entries = list(activity)
    count = 0
    for count, (kind, payload, reason) in enumerate(rows, start=1):
        if not is_rules_kind(kind):
            continue
        action = stored_action(kind, payload)
        after = state.apply(action)
        if isinstance(action, Score):
            entries.append(
                score_entry(
                    logged + count, state, after, action.box, Reason(reason) if reason else None
                )
            )
        state = after
    return state, logged + count, tuple(entries[-ACTIVITY_SIZE:])


def newer_activity(
    activity: Sequence[ScoreEntry],
    state: Game,
    first_number: int,
    actions: Sequence[Action],
    reason: Reason | None,
    after: Game,
) -> tuple[ScoreEntry, ...]:
    """``activity`` with the boxes that ``actions`` (numbered from ``first_number``) record,
    applied to ``state`` they give ``after``; kept to the newest :data:`ACTIVITY_SIZE`."""
    if not any(isinstance(action, Score) for action in actions):
        return tuple(activity)  # most moves (rolls, holds) record no box
    entries = list(activity)
    for number, action in enumerate(actions, start=first_number):
        # A score is a move of its own: its state after is known, no need to apply it again.
        following = after if len(actions) == 1 else state.apply(action)
        if isinstance(action, Score):
            entries.append(score_entry(number, state, following, action.box, reason))
        state = following
    return tuple(entries[-ACTIVITY_SIZE:])


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
