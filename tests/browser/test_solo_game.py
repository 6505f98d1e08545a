"""A person plays Penta in a real Chromium: clicks, keys, the countdown, reloads, a sacrifice."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.pages import MOTION, fetched
from tests.live_server import Server
from tests.scenarios import BOXES_BEFORE_SACRIFICE, SACRIFICE_DICE

pytestmark = pytest.mark.browser

Page = Any  # playwright.sync_api.Page, imported lazily so that the suite runs without it


def open_new_game(browser: Any, server: Server, name: str = "Ann", **context: Any) -> Page:
    page = browser.new_page(**context)
    page.goto(server.url)
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="New game").click()
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    return page


def dice_values(page: Page) -> list[str]:
    return [
        die.get_attribute("data-value") or "" for die in page.locator("#dice-tray button.die").all()
    ]


def roll(page: Page, rolls_left_after: int) -> None:
    page.get_by_role("button", name=re.compile(r"^Roll \(")).click()
    if rolls_left_after:
        expected = f"Roll ({rolls_left_after} left)"
        page.get_by_role("button", name=expected).wait_for()
    else:
        page.locator("#dice-tray .countdown").wait_for()


def test_a_whole_game_by_clicking_with_holds(browser: Any, server: Server, artifacts: Path) -> None:
    page = open_new_game(
        browser, server, viewport={"width": 1280, "height": 900}, reduced_motion=MOTION
    )
    for turn in range(13):
        if turn == 0:  # the board's answer comes gzipped, and the browser shows it
            with page.expect_response(re.compile(r"/roll$")) as answer:
                roll(page, 2)
            assert answer.value.headers.get("content-encoding") == "gzip"
        else:
            roll(page, 2)
        page.get_by_role("button", name=re.compile(r"^die 1: ")).click()
        page.get_by_role("button", name=re.compile(r"^die 1: \w+, held$")).wait_for()
        kept = dice_values(page)[0]
        roll(page, 1)
        assert dice_values(page)[0] == kept
        if turn == 5:
            page.screenshot(path=str(artifacts / "game-desktop.png"), full_page=True)
        page.locator("#scoresheet input[name=box]").first.check()
        page.get_by_role("button", name="Confirm turn").click()
        expected_used = turn + 1
        page.wait_for_function(
            "n => document.querySelectorAll('#scoresheet td.used').length === n", arg=expected_used
        )
    page.get_by_role("heading", name="Game over").wait_for()
    used = [int(cell) for cell in page.locator("#scoresheet td.used").all_inner_texts()]
    assert len(used) == 13
    upper_bonus = int(page.locator("#scoresheet tr.upper-bonus td").inner_text())
    penta_bonus = int(page.locator("#scoresheet tr.penta-bonus td").inner_text())
    total = int(page.locator("#scoresheet tr.total td").inner_text())
    assert total == sum(used) + upper_bonus + penta_bonus
    page.screenshot(path=str(artifacts / "game-over-desktop.png"), full_page=True)
    reloaded = page.reload()  # the page itself, gzipped as well
    assert reloaded is not None
    assert reloaded.headers.get("content-encoding") == "gzip"
    assert page.locator("#scoresheet tr.total td").inner_text() == str(total)


def test_the_computer_records_the_roll_after_three_idle_seconds(
    browser: Any, server: Server
) -> None:
    page = open_new_game(browser, server)
    roll(page, 2)
    roll(page, 1)
    roll(page, 0)
    assert page.locator("#dice-tray .countdown").is_visible()
    assert page.locator("#scoresheet td.used").count() == 0
    page.locator("#scoresheet td.used").first.wait_for(timeout=10_000)
    assert page.locator("#scoresheet td.used").count() == 1
    page.get_by_text("Round 2 of 13").wait_for()


def test_a_box_selected_before_the_deadline_is_the_one_recorded(
    browser: Any, server: Server
) -> None:
    page = open_new_game(browser, server)
    roll(page, 2)
    roll(page, 1)
    roll(page, 0)
    page.locator("#scoresheet input[name=box][value=chance]").check()
    page.get_by_text("Your selected box is recorded in").wait_for()
    assert not page.get_by_text("No box selected").is_visible()
    # Unconfirmed, the selection is recorded at the deadline: the player's, not the computer's.
    page.locator('#scoresheet tr[data-box="chance"] td.used').wait_for(timeout=6000)
    assert page.locator("#scoresheet td.used").count() == 1
    page.locator("#activity li").filter(
        has_text=re.compile(r"^\s*Ann scored \d+ in Chance")
    ).wait_for()


def test_a_box_selected_before_the_rolls_own_answer_lands_stays_selected(
    browser: Any, server: Server
) -> None:
    """The roll's live echo can reach the page before the roll's answer (two connections):
    a box selected in between stays selected when the answer, of the same roll, lands."""
    page = open_new_game(browser, server)
    held: list[tuple[Any, Any]] = []
    page.route("**/games/*/roll", lambda route: held.append((route, route.fetch())))
    page.get_by_role("button", name="Roll (3 left)").click()
    page.get_by_role("button", name="Roll (2 left)").wait_for()  # from the echo alone
    assert len(fetched(page, held)) == 1, "the answer is held back"
    page.locator("#scoresheet input[name=box][value=chance]").check()
    page.evaluate("() => { document.getElementById('scoresheet').dataset.old = 'true'; }")
    route, answer = held.pop()
    route.fulfill(response=answer)
    page.wait_for_function("() => !document.getElementById('scoresheet').dataset.old")
    assert page.locator("#scoresheet input[name=box][value=chance]").is_checked()
    page.get_by_role("button", name="Confirm turn").click()
    page.locator('#scoresheet tr[data-box="chance"] td.used').wait_for()


def test_a_reload_mid_turn_shows_the_same_dice_and_holds(browser: Any, server: Server) -> None:
    page = open_new_game(browser, server)
    roll(page, 2)
    page.get_by_role("button", name=re.compile(r"^die 2: ")).click()
    page.get_by_role("button", name=re.compile(r"^die 2: \w+, held$")).wait_for()
    before = dice_values(page)
    page.reload()
    assert dice_values(page) == before
    assert page.get_by_role("button", name=re.compile(r"^die 2: \w+, held$")).is_visible()
    assert page.get_by_role("button", name="Roll (2 left)").is_visible()


def test_keyboard_play(browser: Any, server: Server) -> None:
    page = open_new_game(browser, server)
    page.keyboard.press("r")
    page.get_by_role("button", name="Roll (2 left)").wait_for()
    page.keyboard.press("3")
    page.get_by_role("button", name=re.compile(r"^die 3: \w+, held$")).wait_for()
    page.locator("#scoresheet input[name=box][value=chance]").check()
    page.keyboard.press("Enter")
    page.locator('#scoresheet tr[data-box="chance"] td.used').wait_for()


def test_a_forced_sacrifice_shows_the_warning_at_phone_width(
    browser: Any, start_server: Callable[..., Server], artifacts: Path
) -> None:
    server = start_server(PENTA_DICE_SCRIPT=SACRIFICE_DICE)
    page = open_new_game(browser, server, viewport={"width": 360, "height": 780})
    boxes = BOXES_BEFORE_SACRIFICE
    warning = page.get_by_text("No open box scores: one must be sacrificed")
    for used, box in enumerate(boxes, start=1):
        roll(page, 2)
        assert not warning.is_visible()
        page.locator(f"#scoresheet input[name=box][value={box}]").check()
        page.get_by_role("button", name="Confirm turn").click()
        page.wait_for_function(
            "n => document.querySelectorAll('#scoresheet td.used').length === n", arg=used
        )
    roll(page, 2)
    warning.wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path=str(artifacts / "game-phone-sacrifice.png"), full_page=True)
    for button in page.locator("#dice-tray button").all():
        box = button.bounding_box()
        assert box["width"] >= 44
        assert box["height"] >= 44
