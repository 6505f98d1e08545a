"""Hints a casual player understands (issue 15, item 3): the dice to keep and the box to score are
marked on the board, and one sentence in the player's language says so; the figures stay one
tap away. With the dice scripted, what the optimal player advises is known in advance."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.pages import new_page, roll_name, say
from tests.browser.test_phone_board import PHONE, settled
from tests.catalogs import compile_catalogs
from tests.live_server import Server

pytestmark = pytest.mark.browser

# Dealt in a cycle: the first roll shows three fives; rolling the other two deals two more.
DICE = "5,5,5,1,2"

KEEP_THREE_FIVES = {
    "en": "Keep 3 fives — best choice, about {points} expected in the end",
    "he": "שמרו 3 קוביות של 5 — הבחירה הטובה ביותר, בסוף צפויות כ־{points} נקודות",
}
KEEP_ALL_FIVE = {
    "en": "Keep all five and score them as {box} — best choice, about {points} expected in the end",
    "he": "שמרו את כל החמש ורשמו אותן ב{box} — הבחירה הטובה ביותר, בסוף צפויות כ־{points} נקודות",
}
SCORE_IT = {
    "en": "Score it as {box} — about {points} expected in the end",
    "he": "רשמו את ההטלה ב{box} — בסוף צפויות כ־{points} נקודות",
}


@pytest.fixture(scope="module", autouse=True)
def compiled_catalogs() -> None:
    compile_catalogs()


def sentence(page: Any) -> str:
    return str(page.locator("#hints .suggestion").inner_text()).removeprefix("★").strip()


def suggested_dice(page: Any) -> list[int]:
    """The values of the dice that carry the visible mark."""
    marked = page.locator("#dice-tray button.die:has(.suggest-mark)")
    for die in marked.all():
        assert die.locator(".suggest-mark").is_visible()
    return [int(value) for value in marked.evaluate_all("ds => ds.map(d => d.dataset.value)")]


def best_hold_figure(page: Any) -> int:
    """The expected total of the best hold, from the figures under the sentence."""
    text = page.locator("#hints .hint-holds li.best .expected").text_content()
    return round(float(text))


def best_box_figure(page: Any) -> tuple[str, int]:
    best = page.locator("#hints .hint-boxes li.best")
    return str(best.get_attribute("data-box")), round(
        float(best.locator(".expected").text_content())
    )


@pytest.mark.parametrize("code", ["en", "he"])
def test_hints_mark_the_dice_and_the_box_and_say_it_in_a_sentence(
    browser: Any, start_server: Callable[..., Server], artifacts: Path, code: str
) -> None:
    server = start_server(PENTA_DICE_SCRIPT=DICE, PENTA_AUTO_CONFIRM_SECONDS="120")
    page = new_page(browser, server, code, PHONE)
    page.goto(server.url)
    page.get_by_label(say(code, "Your name")).fill("Ann")
    page.get_by_role("button", name=say(code, "New game")).click()
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    settled(page)
    page.get_by_role("button", name=say(code, "Show hints")).click()
    page.get_by_role("button", name=say(code, "Hide hints")).wait_for()
    assert page.locator(".suggest-mark").count() == 0, "nothing is suggested before a roll"

    page.get_by_role("button", name=roll_name(code, 3)).click()
    page.get_by_role("button", name=roll_name(code, 2)).wait_for()
    assert suggested_dice(page) == [5, 5, 5]
    assert sentence(page) == KEEP_THREE_FIVES[code].format(points=best_hold_figure(page))
    keep = say(code, "suggested to keep")
    for index, die in enumerate(page.locator("#dice-tray button.die").all()):
        expect_description = keep if index < 3 else ""
        assert die.evaluate(DESCRIPTION) == expect_description, index
    assert page.locator("#scoresheet tr.suggested").count() == 0, "a roll is better than a box"
    # The figures are there for those who want them, folded under the sentence.
    numbers = page.locator("#hints details.hint-numbers")
    assert not page.locator("#hints .hint-holds").is_visible()
    numbers.locator("summary").click()
    assert page.locator("#hints .hint-holds li").count() >= 1
    page.screenshot(path=str(artifacts / f"hints-phone-{code}.png"), animations="disabled")

    for index in range(3):  # keep what is suggested
        page.locator("#dice-tray button.die").nth(index).click()
        page.locator("#dice-tray button.die.held").nth(index).wait_for()
    page.get_by_role("button", name=roll_name(code, 2)).click()
    page.get_by_role("button", name=roll_name(code, 1)).wait_for()
    assert suggested_dice(page) == [5, 5, 5, 5, 5]
    row = page.locator("#scoresheet tr.suggested")
    assert row.get_attribute("data-box") == "penta"
    assert row.locator(".suggest-mark").is_visible()
    assert page.locator("#box-penta").evaluate(DESCRIPTION) == say(code, "suggested box")
    penta = say(code, "Penta")
    assert sentence(page) == KEEP_ALL_FIVE[code].format(box=penta, points=best_hold_figure(page))

    for left in (2, 1, 0):  # throw all five again: the cycle deals 5 5 5 1 2
        page.locator("#dice-tray button.die.held").first.click()
        page.wait_for_function(
            f"() => document.querySelectorAll('#dice-tray button.die.held').length === {left}"
        )
    page.get_by_role("button", name=roll_name(code, 1)).click()
    page.locator("#dice-tray .countdown").wait_for()
    assert suggested_dice(page) == [], "no roll is left: no die to keep"
    box, points = best_box_figure(page)
    row = page.locator("#scoresheet tr.suggested")
    assert row.get_attribute("data-box") == box
    label = page.locator(f"#scoresheet tr[data-box={box}] th label").inner_text()
    assert sentence(page) == SCORE_IT[code].format(box=label, points=points)
    page.screenshot(path=str(artifacts / f"hints-box-phone-{code}.png"), animations="disabled")

    # Hints off: no mark anywhere.
    page.get_by_role("button", name=say(code, "Hide hints")).click()
    page.get_by_role("button", name=say(code, "Show hints")).wait_for()
    assert page.locator(".suggest-mark, .suggestion, #game [aria-describedby]").count() == 0


DESCRIPTION = """element => (element.getAttribute('aria-describedby') || '').split(' ')
    .filter(Boolean).map(id => document.getElementById(id).textContent.trim()).join(' ')"""
"""The accessible description an element gets from aria-describedby."""
