"""The board for keyboards and screen readers, and its celebrations: focus after each action,
the "?" list of keys, new dice announced, a Penta lit up and explained, the upper bonus."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.live_server import Server

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
UPPER_BONUS_DICE = "6,6,6,6,1,5,5,5,5,1,4,4,4,4,1,3,3,3,1,2"
"""Four rolls, one a turn: Sixes 24, Fives 20, Fours 16, Threes 9 make 69, past the 63."""


def new_game(browser: Any, server: Server) -> Any:
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(server.url)
    page.get_by_label("Your name").fill("Ann")
    page.get_by_role("button", name="New game").click()
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    page.wait_for_function("() => document.readyState === 'complete' && window.htmx")
    return page


def focused_key(page: Any) -> str | None:
    return page.evaluate("() => document.activeElement.dataset.key || null")


def test_focus_goes_to_the_next_sensible_control(browser: Any, server: Server) -> None:
    page = new_game(browser, server)
    page.get_by_role("button", name="Roll (3 left)").focus()
    page.keyboard.press("Space")
    page.get_by_role("button", name="Roll (2 left)").wait_for()
    page.wait_for_function("() => document.activeElement.dataset.key === 'r'")
    page.get_by_role("button", name=re.compile(r"^die 2: ")).focus()
    page.keyboard.press("Space")
    page.get_by_role("button", name=re.compile(r"^die 2: \w+, held$")).wait_for()
    page.wait_for_function("() => document.activeElement.dataset.key === '2'")
    page.locator("#scoresheet input[value=chance]").focus()
    page.keyboard.press("Space")
    page.keyboard.press("Enter")  # Confirm turn, from the selected box
    page.locator('#scoresheet tr[data-box="chance"] td.used').wait_for()
    page.wait_for_function("() => document.activeElement.dataset.key === 'r'")
    assert page.evaluate("() => document.activeElement.textContent.trim()") == "Roll (3 left)"


def test_the_question_mark_shows_the_keys_and_new_dice_are_announced(
    browser: Any, server: Server
) -> None:
    page = new_game(browser, server)
    shortcuts = page.locator("#shortcuts")
    assert shortcuts.get_attribute("open") is None
    page.keyboard.press("?")
    assert shortcuts.get_attribute("open") == ""
    assert shortcuts.get_by_text("Confirm the selected box").is_visible()
    page.keyboard.press("?")
    assert shortcuts.get_attribute("open") is None
    roll = page.get_by_role("button", name="Roll (3 left)")
    assert roll.get_attribute("aria-keyshortcuts") == "R"

    roll.click()
    page.get_by_role("button", name="Roll (2 left)").wait_for()
    values = [die.get_attribute("data-value") for die in page.locator("#dice-tray .die").all()]
    announcer = page.locator("#dice-announcer")
    assert announcer.get_attribute("aria-live") == "polite"
    assert announcer.text_content() == "Dice rolled: " + ", ".join(values)


def test_a_penta_is_celebrated_and_the_joker_explained(
    browser: Any, start_server: Callable[..., Server]
) -> None:
    server = start_server(PENTA_DICE_SCRIPT="4,4,4,4,4")
    page = new_game(browser, server)
    page.get_by_role("button", name="Roll (3 left)").click()
    page.get_by_role("button", name="Roll (2 left)").wait_for()
    page.get_by_role("button", name="Roll (2 left)").click()  # a roll of this page (htmx)
    page.get_by_role("button", name="Roll (1 left)").wait_for()
    page.wait_for_selector("#dice-tray.celebrate[data-penta]")
    joker = page.get_by_text("Joker: this Penta earns the 100 bonus")
    assert joker.count() == 0, "a first Penta is not a joker"
    page.locator('#scoresheet tr[data-box="penta"] th').click()
    page.get_by_role("button", name="Confirm turn").click()
    page.locator('#scoresheet tr[data-box="penta"] td.used').wait_for()
    page.get_by_role("button", name="Roll (3 left)").click()
    joker.wait_for()
    assert page.locator("#scoresheet input[name=box]").count() == 1, "only Fours"
    assert page.locator("#scoresheet input[value=fours]").count() == 1


def test_reaching_the_upper_bonus_is_celebrated(
    browser: Any, start_server: Callable[..., Server]
) -> None:
    server = start_server(PENTA_DICE_SCRIPT=UPPER_BONUS_DICE)
    page = new_game(browser, server)
    bonus = page.locator("#scoresheet tr.upper-bonus td")
    for box in ("sixes", "fives", "fours", "threes"):
        assert bonus.get_attribute("class") is None
        page.get_by_role("button", name="Roll (3 left)").click()
        page.get_by_role("button", name="Roll (2 left)").wait_for()
        page.locator(f'#scoresheet tr[data-box="{box}"] th').click()
        page.get_by_role("button", name="Confirm turn").click()
        page.locator(f'#scoresheet tr[data-box="{box}"] td.used').wait_for()
    assert bonus.inner_text() == "35"
    page.locator("#scoresheet tr.upper-bonus td.celebrate").wait_for()
