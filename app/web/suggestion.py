"""Hints in a casual player's words: which dice to keep, which box, and one sentence saying so."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from babel.lists import format_list

from app import i18n
from app.analysis.advice import Advice
from app.rules import Box


@dataclass(frozen=True)
class Suggestion:
    """What the optimal player would do now, for the marks on the dice and the sheet."""

    keep: frozenset[int]
    """Indices of the dice on the table suggested to keep (none when a box is suggested)."""
    box: Box | None
    """The box suggested to score now (only when no roll is worth making)."""
    sentence: str
    expected: float


def _dice_words(kept: Sequence[int]) -> str:
    """The kept values as words, e.g. "2 fives and 1 six", in the current language."""
    # One message per face: the noun and its plural differ by face in most languages.
    # Kept strings are literal so that `make extract` finds them.
    counts = Counter(kept)
    words = {
        1: lambda n: i18n.ngettext("%(num)d one", "%(num)d ones", n),
        2: lambda n: i18n.ngettext("%(num)d two", "%(num)d twos", n),
        3: lambda n: i18n.ngettext("%(num)d three", "%(num)d threes", n),
        4: lambda n: i18n.ngettext("%(num)d four", "%(num)d fours", n),
        5: lambda n: i18n.ngettext("%(num)d five", "%(num)d fives", n),
        6: lambda n: i18n.ngettext("%(num)d six", "%(num)d sixes", n),
    }
    # Most dice first, then the higher face: "3 fours and 1 six".
    groups = sorted(counts.items(), key=lambda item: (-item[1], -item[0]))
    parts = [words[face](count) % {"num": count} for face, count in groups]
    return format_list(parts, locale=i18n.current_language().code)


def suggest(hints: object, dice: Sequence[int] | None) -> Suggestion | None:
    """The suggestion of ``hints`` (the page's advice, else None) for ``dice`` on the table."""
    if not isinstance(hints, Advice) or not dice or hints.best_box is None:
        return None
    if hints.holds:
        best = hints.holds[0]
        points = round(best.expected)
        if len(best.kept) == len(dice):
            sentence = i18n.gettext(
                "Keep all five and score them as %(box)s — best choice, "
                "about %(points)d expected in the end"
            ) % {"box": i18n.box_label(hints.best_box), "points": points}
            return Suggestion(frozenset(range(len(dice))), hints.best_box, sentence, best.expected)
        if not best.kept:
            sentence = i18n.gettext(
                "Nothing worth keeping: roll all five again — best choice, "
                "about %(points)d expected in the end"
            ) % {"points": points}
            return Suggestion(frozenset(), None, sentence, best.expected)
        sentence = i18n.gettext(
            "Keep %(dice)s — best choice, about %(points)d expected in the end"
        ) % {"dice": _dice_words(best.kept), "points": points}
        keep = frozenset(index for index, held in enumerate(best.held) if held)
        return Suggestion(keep, None, sentence, best.expected)
    expected = hints.boxes[hints.best_box][1]
    sentence = i18n.gettext("Score it as %(box)s — about %(points)d expected in the end") % {
        "box": i18n.box_label(hints.best_box),
        "points": round(expected),
    }
    return Suggestion(frozenset(), hints.best_box, sentence, expected)
