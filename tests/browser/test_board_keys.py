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


def roll_three_times(page: Any) -> None:
    for left in (3, 2, 1):
        page.get_by_role("button", name=f"Roll ({left} left)").click()
        if left > 1:
            page.get_by_role("button", name=f"Roll ({left - 1} left)").wait_for()
    page.locator("#dice-tray .countdown").wait_for()


def test_roll_has_the_focus_when_the_game_opens(browser: Any, server: Server) -> None:
    page = new_game(browser, server)
    page.wait_for_function("() => document.activeElement.dataset.key === 'r'")
    page.keyboard.press("Space")
    page.get_by_role("button", name="Roll (2 left)").wait_for()


def test_boxes_passed_over_with_the_arrows_are_not_recorded_at_the_deadline(
    browser: Any, start_server: Callable[..., Server]
) -> None:
    """Five sixes: the computer's box is Penta. The player arrows from Ones down to Fours and
    stops there without confirming: at the deadline Penta is recorded, Fours stays open."""
    server = start_server(PENTA_DICE_SCRIPT="6,6,6,6,6", PENTA_AUTO_CONFIRM_SECONDS="2")
    page = new_game(browser, server)
    roll_three_times(page)
    page.locator("#scoresheet input[value=ones]").focus()
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    assert page.locator("#scoresheet input[value=fours]").is_checked()
    assert page.locator(".countdown-none").is_visible(), "a box passed over is not chosen"
    page.locator('#scoresheet tr[data-box="penta"] td.used').wait_for()
    assert page.locator('#scoresheet tr[data-box="penta"] td.used').inner_text() == "50"
    assert page.locator('#scoresheet tr[data-box="fours"] td.used').count() == 0


def test_a_box_key_chooses_the_box_for_the_deadline_and_enter_confirms_it(
    browser: Any, start_server: Callable[..., Server]
) -> None:
    server = start_server(PENTA_DICE_SCRIPT="6,6,6,6,6", PENTA_AUTO_CONFIRM_SECONDS="2")
    page = new_game(browser, server)
    roll_three_times(page)
    page.keyboard.press("f")  # Sixes, the sixth box down the sheet
    assert page.locator("#scoresheet input[value=sixes]").is_checked()
    assert page.locator(".countdown-chosen").is_visible()
    page.locator('#scoresheet tr[data-box="sixes"] td.used').wait_for()
    assert page.locator('#scoresheet tr[data-box="sixes"] td.used').inner_text() == "30"
    assert page.locator('#scoresheet tr[data-box="penta"] td.used').count() == 0

    page.get_by_role("button", name="Roll (3 left)").click()
    page.get_by_role("button", name="Roll (2 left)").wait_for()
    page.keyboard.press("L")  # Chance
    page.keyboard.press("Enter")
    page.locator('#scoresheet tr[data-box="chance"] td.used').wait_for()
    assert page.locator('#scoresheet tr[data-box="chance"] td.used').inner_text() == "30"
    assert page.get_by_text("Choose a box: A for Ones down the sheet to M for Penta").count() == 1
