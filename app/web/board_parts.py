"""The fragments of a live board, in the order the page swaps them, and what each shows.

While a game is played one rendering serves every reader, and most fragments do not change
with every version: a hold changes the dice, not the scoresheet, the log or the dice's
seeds. A fragment's ``shows`` names what of the game it shows; where that equals the
version before's, the new rendering keeps the old fragment instead of making it again
(``tests/live/test_board_parts.py`` plays whole games to check that every fragment kept is
the one a fresh rendering gives).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from app.i18n import Language
from app.service.views import GameView


@dataclass(frozen=True)
class BoardPart:
    """One fragment of the live board: its template and, where it does not change with every
    version, what of the game it shows (a version that shows the same keeps its rendering)."""

    template: str
    shows: Callable[[GameView], Hashable] | None = None


def _names(view: GameView) -> tuple[str, ...]:
    return tuple(player.name for player in view.players)


def _sheet(view: GameView) -> Hashable:
    """The sheets, the turn and the dice: the boxes offered follow from them (the holds and
    the log do not show there)."""
    players = tuple((player.name, player.computer, player.sheet) for player in view.players)
    return (
        view.status,
        view.turn,
        view.scored_turns,
        view.rolls_used,
        view.dice,
        view.fresh_score,
        players,
    )


SHARED_BOARD = (
    BoardPart("fragments/dice_tray.html"),  # its version, and the dice, change every time
    BoardPart(
        "fragments/status.html",
        lambda view: (view.status, view.scored_turns, view.turn_seconds_left),
    ),
    BoardPart("fragments/sacrifice_warning.html", lambda view: view.must_sacrifice),
    BoardPart("fragments/scoresheet.html", _sheet),
    BoardPart(
        "fragments/fairness.html",
        lambda view: (view.status, view.fairness, _names(view)),
    ),
    BoardPart(
        "fragments/activity.html",
        lambda view: (view.activity, view.fresh_score, _names(view)),
    ),
)
"""The board while the game is played: one rendering for every reader of a version (the
hints, one seat's own, are sent to it apart)."""

BOARD = (*(BoardPart(part.template) for part in SHARED_BOARD), BoardPart("fragments/hints.html"))
"""The board before and after play, one seat's own, made whole for each version."""

LOBBY = (BoardPart("fragments/lobby.html"),)


def board_context(
    view: GameView,
    *,
    lang: Language,
    shared: bool,
    holder: int | None,
    moved: bool,
    site: str,
    auto_seconds: float,
    hints: Any,
) -> dict[str, Any]:
    """What a live board's fragments are rendered with. Live fragments carry no CSRF field:
    htmx sends the token as a header (set on <body>), so one rendering serves every reader
    with the same language (and, outside play, seat)."""
    return {
        "game": view,
        "me": None if shared else holder,
        "shared": shared,
        "moved": moved,
        "lang": lang,
        "live": True,
        "oob": True,
        "csrf_token": "",
        "auto_seconds": auto_seconds,
        "base_url": site,
        "hints": None if shared else hints,
    }
