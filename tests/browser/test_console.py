"""A whole solo game with the console open (hints on, holds, the countdown, one turn left to
it, the review): no error, no Content-Security-Policy violation (issue 26)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.pages import MOTION
from tests.live_server import Server

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def test_a_whole_solo_game_logs_no_console_error(
    browser: Any, server: Server, artifacts: Path
) -> None:
    context = browser.new_context(viewport=PHONE, reduced_motion=MOTION)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url)
    page.get_by_label("Your name").fill("Ann")
    page.get_by_role("button", name="New game").click()
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    page.wait_for_function("() => document.readyState === 'complete' && window.htmx")
    page.get_by_role("button", name="Show hints").click()
    page.get_by_role("button", name="Hide hints").wait_for()
    for turn in range(13):
        rolls = 3 if turn % 2 else 1  # every other turn to the countdown
        for roll in range(1, rolls + 1):
            page.locator("#dice-tray button.roll").click()
            page.locator(f'#dice-tray[data-roll$="-{roll}"]').wait_for()
            if roll == 1:
                page.locator("#dice-tray button.die").first.click()  # a hold, and its release
                page.locator("#dice-tray button.die.held").wait_for()
                page.locator("#dice-tray button.die").first.click()
                page.locator("#dice-tray button.die.held").wait_for(state="detached")
        if turn == 11:
            # Nothing selected after the third roll: the countdown records the computer's
            # box, the log says so with the dice, and the dice stay on the table, faded.
            page.locator("#scoresheet td.used").nth(turn).wait_for(timeout=10_000)
            newest = page.locator("#activity li").first
            assert newest.inner_text().startswith("Time's up: the computer scored")
            assert re.search(r"\((\d ){4}\d", newest.inner_text()), "the dice it scored"
            page.locator("#dice-tray .dice.last-scored").wait_for()
            continue
        page.locator("#scoresheet tr.selectable").first.click()
        page.locator("#dice-tray button.confirm").click()
        page.locator("#scoresheet td.used").nth(turn).wait_for()
    page.get_by_role("heading", name="Game over").wait_for()
    page.get_by_role("link", name="Review the game").click()
    page.wait_for_load_state("load")
    assert errors == []
