"""The one-thumb board (issue 15): a turn in reach at phone and desktop sizes, in English and
Hebrew; the whole row selects its box; the sheet keeps its height; six players fit a phone."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.pages import MOTION, new_page, roll_name, say
from tests.catalogs import compile_catalogs
from tests.live_server import Server

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="module", autouse=True)
def compiled_catalogs() -> None:
    compile_catalogs()


def start_solo_game(
    browser: Any, server: Server, code: str, viewport: dict[str, int], **options: Any
) -> Any:
    page = new_page(browser, server, code, viewport, **options)
    page.goto(server.url)
    page.get_by_label(say(code, "Your name")).fill("Ann")
    page.get_by_role("button", name=say(code, "New game")).click()
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    return page


def settled(page: Any) -> None:
    """Wait for the page's scripts: a click before htmx is up would post the form in full."""
    page.wait_for_function("() => document.readyState === 'complete' && window.htmx !== undefined")


def assert_in_viewport(page: Any, element: Any, what: str) -> None:
    box = element.bounding_box()
    size = page.viewport_size
    assert box is not None, f"{what} is not shown"
    assert 0 <= box["x"] <= size["width"] - box["width"], (what, box)
    assert 0 <= box["y"] <= size["height"] - box["height"], (what, box)


def sheet_height(page: Any) -> float:
    return float(page.locator("#scoresheet table").bounding_box()["height"])


@pytest.mark.parametrize("code", ["en", "he"])
@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_whole_turn_is_in_reach_without_scrolling(
    browser: Any, server: Server, artifacts: Path, code: str, viewport: dict[str, int]
) -> None:
    page = start_solo_game(browser, server, code, viewport)
    height = sheet_height(page)
    confirm = page.get_by_role("button", name=say(code, "Confirm turn"))
    for left in (2, 1, 0):
        page.locator("#dice-tray button.roll").click()
        if left:
            roll = page.get_by_role("button", name=roll_name(code, left))
            roll.wait_for()
            assert_in_viewport(page, roll, "Roll")
        else:
            page.locator("#dice-tray .countdown").wait_for()
            assert_in_viewport(page, page.locator("#dice-tray .countdown"), "the countdown")
        assert page.evaluate("window.scrollY") == 0, "nothing scrolled to reach the controls"
        assert_in_viewport(page, confirm, "Confirm")
        for die in page.locator("#dice-tray button.die").all():
            assert_in_viewport(page, die, "a die")
        assert sheet_height(page) == pytest.approx(height, abs=0.5), "the sheet kept its height"
        if left == 2:
            kind = "phone" if viewport is PHONE else "desktop"
            page.screenshot(path=str(artifacts / f"board-{kind}-{code}.png"), animations="disabled")
    # Tapping the box's name selects the box, and Confirm records it.
    page.locator('#scoresheet tr[data-box="chance"] th').click()
    assert page.locator("#scoresheet input[value=chance]").is_checked()
    confirm.click()
    page.locator('#scoresheet tr[data-box="chance"] td.used').wait_for()


def test_the_name_of_a_box_selects_it_without_javascript(browser: Any, server: Server) -> None:
    """The row's name is a <label> of its radio: no script is needed to select by the name."""
    page = start_solo_game(browser, server, "en", PHONE)
    page.get_by_role("button", name="Roll (3 left)").click()
    page.get_by_role("button", name="Roll (2 left)").wait_for()
    html = page.locator("#scoresheet").evaluate("sheet => sheet.outerHTML")
    bare = browser.new_context(java_script_enabled=False, viewport=PHONE).new_page()
    bare.set_content(html)
    bare.locator('tr[data-box="ones"] th label').click()
    assert bare.locator("input[value=ones]").is_checked()
    bare.locator('tr[data-box="penta"] th label').click()
    assert bare.locator("input[value=penta]").is_checked()
    assert not bare.locator("input[value=ones]").is_checked()


def test_six_players_fit_a_phone(
    browser: Any, start_server: Callable[..., Server], artifacts: Path
) -> None:
    server = start_server(PENTA_COMPUTER_PACE_SECONDS="0.05")
    page = new_page(browser, server, "en", PHONE)
    page.goto(server.url)
    page.get_by_label("Your name").fill("Annabelle-Marie")
    page.get_by_role("button", name="Play with friends").click()
    for number in range(1, 6):
        page.get_by_role("button", name="Add a computer player").click()
        page.locator("#lobby").get_by_text(f"Computer {number}").wait_for()
    page.get_by_role("button", name="Start the game").click()
    page.get_by_role("button", name="Roll (3 left)").click()
    page.get_by_role("button", name="Roll (2 left)").wait_for()
    page.screenshot(path=str(artifacts / "board-phone-six-players.png"), full_page=True)
    sheet = page.locator("#scoresheet")
    assert sheet.evaluate("s => s.scrollWidth <= s.clientWidth"), "no sideways scrolling"
    width = PHONE["width"]
    for cell in sheet.locator("thead th, tbody th, tr.total td").all():
        box = cell.bounding_box()
        assert 0 <= box["x"] <= width - box["width"], cell.inner_text()
    assert sheet.locator("tr.total td").count() == 6
    assert sheet.locator("thead th.player").count() == 6
    # A tap on another player's cell of an offered row selects that box too (board.js).
    page.locator('#scoresheet tr[data-box="chance"] td').nth(3).click()
    assert page.locator("#scoresheet input[value=chance]").is_checked()


WATCH_THE_NEXT_TRAY = """() => {
    window.landed = null;
    document.addEventListener('htmx:load', event => {
        if (event.target.id !== 'dice-tray' || window.landed) return;
        window.landed = Array.from(event.target.querySelectorAll('button.die'), die => ({
            tumble: die.classList.contains('tumble'), running: die.getAnimations().length}));
    });
}"""
"""Records the dice of the first tray that lands next, as it lands: a loaded machine may take
longer than the tumble itself to get back to the test."""


def roll_and_watch(page: Any, left_after: int) -> list[dict[str, Any]]:
    settled(page)
    page.evaluate(WATCH_THE_NEXT_TRAY)
    page.get_by_role("button", name=f"Roll ({left_after + 1} left)").click()
    page.get_by_role("button", name=f"Roll ({left_after} left)").wait_for()
    page.wait_for_function("() => window.landed !== null")
    landed: list[dict[str, Any]] = page.evaluate("window.landed")
    return landed


def test_the_dice_that_rolled_tumble(browser: Any, server: Server) -> None:
    page = start_solo_game(browser, server, "en", PHONE, reduced_motion=MOTION)
    first = roll_and_watch(page, 2)
    assert [die["running"] for die in first] == [1, 1, 1, 1, 1]
    page.locator("#dice-tray button.die").first.click()
    page.locator("#dice-tray button.die.held").wait_for()
    page.wait_for_timeout(500)  # the tumble of the first roll is over
    assert page.evaluate("document.getAnimations().length") == 0, "a hold does not tumble"
    second = roll_and_watch(page, 1)
    assert second[0] == {"tumble": False, "running": 0}, "the held die did not roll"
    assert all(die == {"tumble": True, "running": 1} for die in second[1:]), second


def test_no_tumble_under_reduced_motion(browser: Any, server: Server) -> None:
    page = browser.new_context(viewport=PHONE, reduced_motion="reduce").new_page()
    page.goto(server.url)
    page.get_by_label("Your name").fill("Ann")
    page.get_by_role("button", name="New game").click()
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    landed = roll_and_watch(page, 2)
    assert all(die == {"tumble": True, "running": 0} for die in landed), landed
