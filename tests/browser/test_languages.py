"""Hebrew and Thai in a real Chromium: mirrored layout, self-hosted fonts, phone width, switcher."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.pages import new_page, open_menu, roll_name, say
from tests.catalogs import compile_catalogs
from tests.live_server import Server

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 360, "height": 780}
FONT_FAMILY = {"he": "Penta Noto Sans Hebrew", "th": "Penta Noto Sans Thai"}
FONTS_FETCHED: dict[Any, list[Any]] = {}
"""The responses each page received, to see which font files it fetched."""


@pytest.fixture(scope="module", autouse=True)
def compiled_catalogs() -> None:
    compile_catalogs()


def open_game(browser: Any, server: Server, code: str, viewport: dict[str, int]) -> Any:
    """A new solo game in ``code`` (chosen by the cookie), after one roll with die 1 held."""
    page = new_page(browser, server, code, viewport)
    fetched: list[Any] = []
    FONTS_FETCHED[page] = fetched
    page.on("response", lambda response: fetched.append(response))
    page.goto(server.url)
    page.get_by_label(say(code, "Your name")).fill("Ann")
    page.get_by_role("button", name=say(code, "New game")).click()
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    page.get_by_role("button", name=roll_name(code, 3)).click()
    page.get_by_role("button", name=roll_name(code, 2)).wait_for()
    page.locator("#dice-tray button.die").first.click()
    page.locator("#dice-tray button.die.held").wait_for()
    page.evaluate("document.fonts.ready.then(() => true)")
    return page


def font_loaded(page: Any, family: str) -> bool:
    """Whether the page has loaded ``family`` from this server (a FontFace that is 'loaded')."""
    script = """family => Array.from(document.fonts).some(
        face => face.family.replace(/"/g, '') === family && face.status === 'loaded')"""
    return bool(page.evaluate(script, family))


def assert_fonts_from_this_server(page: Any, server: Server, code: str) -> None:
    assert font_loaded(page, FONT_FAMILY[code])
    fetched = [
        response.url
        for response in FONTS_FETCHED[page]
        if response.url.endswith(".woff2") and response.status == 200
    ]
    assert fetched, "a woff2 file was requested"
    assert all(url.startswith(f"{server.url}/static/vendor/fonts/") for url in fetched)


def no_horizontal_overflow(page: Any) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def name_and_number(page: Any, box: str) -> tuple[dict[str, float], dict[str, float]]:
    row = page.locator(f'#scoresheet tr[data-box="{box}"]')
    return row.locator("th").bounding_box(), row.locator("td").first.bounding_box()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_hebrew_game_page_is_mirrored(
    browser: Any, server: Server, artifacts: Path, viewport: dict[str, int]
) -> None:
    page = open_game(browser, server, "he", viewport)
    html = page.locator("html")
    assert (html.get_attribute("lang"), html.get_attribute("dir")) == ("he", "rtl")
    for box in ("ones", "chance", "penta"):
        name, number = name_and_number(page, box)
        assert name["x"] >= number["x"] + number["width"] - 1, box
    header = page.locator("#scoresheet thead th").first.bounding_box()
    sheet = page.locator("#scoresheet").bounding_box()
    assert header["x"] + header["width"] > sheet["x"] + sheet["width"] / 2
    if viewport is DESKTOP:
        tray = page.locator("#dice-tray").bounding_box()
        assert sheet["x"] + sheet["width"] <= tray["x"], "the scoresheet sits on the left"
    assert page.locator("#dice-tray button.die").first.get_attribute("data-value")
    assert_fonts_from_this_server(page, server, "he")
    assert no_horizontal_overflow(page)
    name = "desktop" if viewport is DESKTOP else "phone"
    page.screenshot(path=str(artifacts / f"game-he-{name}.png"), full_page=True)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_thai_game_page_reads_left_to_right_with_its_font(
    browser: Any, server: Server, artifacts: Path, viewport: dict[str, int]
) -> None:
    page = open_game(browser, server, "th", viewport)
    html = page.locator("html")
    assert (html.get_attribute("lang"), html.get_attribute("dir")) == ("th", "ltr")
    name, number = name_and_number(page, "ones")
    assert name["x"] + name["width"] <= number["x"] + 1
    if viewport is DESKTOP:
        tray = page.locator("#dice-tray").bounding_box()
        sheet = page.locator("#scoresheet").bounding_box()
        assert tray["x"] + tray["width"] <= sheet["x"], "the scoresheet sits on the right"
    assert page.get_by_text(
        say("th", "Select the dice to hold, then roll again or choose a box.")
    ).is_visible()
    assert_fonts_from_this_server(page, server, "th")
    assert no_horizontal_overflow(page)
    name = "desktop" if viewport is DESKTOP else "phone"
    page.screenshot(path=str(artifacts / f"game-th-{name}.png"), full_page=True)


def test_the_switcher_changes_the_language_and_remembers_it(browser: Any, server: Server) -> None:
    page = browser.new_context(viewport=PHONE, locale="fi-FI").new_page()
    page.goto(f"{server.url}/rules")
    assert page.locator("html").get_attribute("lang") == "fi"
    open_menu(page, "fi")
    page.get_by_label(say("fi", "Language")).select_option("he")
    page.wait_for_function("document.documentElement.dir === 'rtl'")
    assert page.url == f"{server.url}/rules"
    assert page.get_by_role("heading", name=say("he", "The rules of Penta")).is_visible()
    assert no_horizontal_overflow(page)
    page.goto(server.url)
    assert page.locator("html").get_attribute("lang") == "he"


def test_each_watcher_of_a_live_game_reads_it_in_their_language(
    browser: Any, server: Server
) -> None:
    player = open_game(browser, server, "fi", DESKTOP)
    watcher = browser.new_context(viewport=DESKTOP)
    watcher.add_cookies([{"name": "penta_lang", "value": "he", "url": server.url}])
    watching = watcher.new_page()
    watching.goto(player.url)
    assert watching.locator("html").get_attribute("dir") == "rtl"
    player.get_by_role("button", name=roll_name("fi", 2)).click()
    player.get_by_role("button", name=roll_name("fi", 1)).wait_for()
    held = re.compile(r"^קובייה 1: \S+, שמורה$")
    watching.get_by_role("button", name=held).wait_for()
    mine = player.locator("#dice-tray button.die").first.get_attribute("aria-label") or ""
    assert re.fullmatch(r"noppa 1: \w+, pidetty", mine)
    assert player.locator("html").get_attribute("dir") == "ltr"
