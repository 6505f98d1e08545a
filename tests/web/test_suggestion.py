"""The hint's sentence and marks from the optimal player's advice, in words and plural forms of
each language."""

from __future__ import annotations

import pytest

from app import i18n
from app.analysis.advice import Advice
from app.rules import Box
from app.strategy import HoldOption
from app.web.suggestion import suggest
from tests.catalogs import compile_catalogs


@pytest.fixture(scope="module", autouse=True)
def compiled_catalogs() -> None:
    compile_catalogs()


def hold(dice: tuple[int, ...], held: tuple[bool, ...], expected: float) -> HoldOption:
    return HoldOption(
        held, tuple(sorted(d for d, h in zip(dice, held, strict=True) if h)), expected
    )


DICE = (5, 2, 5, 6, 1)
KEEP_FIVES_AND_SIX = Advice(
    best_box=Box.FIVES,
    best_hold=(0, 2, 3),
    boxes={Box.FIVES: (10, 230.0), Box.CHANCE: (19, 225.0)},
    holds=(
        hold(DICE, (True, False, True, True, False), 238.6),
        hold(DICE, (True, False, True, False, False), 237.9),
    ),
)


@pytest.mark.parametrize(
    ("code", "sentence"),
    [
        ("en", "Keep 2 fives and 1 six — best choice, about 239 expected in the end"),
        (
            "fi",
            "Pidä 2 viitosta ja 1 kuutonen — paras valinta, "
            "lopussa odotettavissa noin 239 pistettä",
        ),
        ("he", "שמרו 2 קוביות של 5 ו1 קובייה של 6 — הבחירה הטובה ביותר, בסוף צפויות כ־239 נקודות"),  # noqa: RUF001
        (
            "hu",
            "Tarts meg 2 ötöst és 1 hatost — a legjobb választás, a végén várhatóan kb. 239 pont",
        ),
    ],
)
def test_the_dice_to_keep_are_said_in_words_with_plural_forms(code: str, sentence: str) -> None:
    with i18n.language(code):
        tip = suggest(KEEP_FIVES_AND_SIX, DICE)
    assert tip is not None
    assert tip.sentence == sentence
    assert (tip.keep, tip.box) == (frozenset({0, 2, 3}), None)


def test_nothing_worth_keeping_says_roll_all_five_again() -> None:
    advice = Advice(
        best_box=Box.CHANCE,
        best_hold=(),
        boxes={Box.CHANCE: (15, 200.0)},
        holds=(hold((1, 2, 3, 1, 2), (False,) * 5, 231.2),),
    )
    tip = suggest(advice, (1, 2, 3, 1, 2))
    assert tip is not None
    assert tip.sentence == (
        "Nothing worth keeping: roll all five again — best choice, about 231 expected in the end"
    )
    assert (tip.keep, tip.box) == (frozenset(), None)


def test_keeping_all_five_names_the_box_too() -> None:
    dice = (4, 4, 4, 4, 4)
    advice = Advice(
        best_box=Box.PENTA,
        best_hold=(0, 1, 2, 3, 4),
        boxes={Box.PENTA: (50, 290.4), Box.FOURS: (20, 250.0)},
        holds=(hold(dice, (True,) * 5, 290.4),),
    )
    with i18n.language("fr"):
        tip = suggest(advice, dice)
    assert tip is not None
    assert tip.sentence == (
        "Gardez les cinq dés et inscrivez-les en Penta — meilleur choix, "
        "environ 290 points attendus à la fin"
    )
    assert (tip.keep, tip.box) == (frozenset(range(5)), Box.PENTA)


def test_after_the_last_roll_the_box_is_suggested() -> None:
    advice = Advice(
        best_box=Box.FULL_HOUSE,
        best_hold=None,
        boxes={Box.FULL_HOUSE: (25, 241.3), Box.THREES: (9, 236.0)},
    )
    tip = suggest(advice, (3, 3, 3, 2, 2))
    assert tip is not None
    assert tip.sentence == "Score it as Full house — about 241 expected in the end"
    assert (tip.keep, tip.box) == (frozenset(), Box.FULL_HOUSE)


@pytest.mark.parametrize(
    "hints", [None, "preparing", Advice(None, None, {}, expected=254.5)], ids=str
)
def test_no_suggestion_without_advice_for_dice(hints: object) -> None:
    assert suggest(hints, (1, 2, 3, 4, 5)) is None
    assert suggest(KEEP_FIVES_AND_SIX, None) is None
