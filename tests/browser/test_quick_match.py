"""The quick match in real browsers: two strangers, a phone and a desktop, press *Play now*
and meet at one table; a third person finds it on the home page and watches (issue 28)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.test_multiplayer import play_turn
from tests.live_server import Server

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def play_now(browser: Any, server: Server, name: str, viewport: dict[str, int]) -> Any:
    page = browser.new_context(viewport=viewport).new_page()
    page.goto(server.url)
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Play now").click()
    return page


def test_two_strangers_meet_at_a_table_and_a_third_watches_it_from_the_home_page(
    browser: Any, start_server: Callable[..., Server], artifacts: Path
) -> None:
    server = start_server(PENTA_MATCH_WAIT_SECONDS="2", PENTA_COMPUTER_PACE_SECONDS="3600")
    phone = play_now(browser, server, "Hana", PHONE)
    phone.get_by_role("heading", name="Looking for players").wait_for()
    phone.get_by_text("1 player waiting").wait_for()
    phone.get_by_text("Nobody else has come yet.").wait_for()  # two seconds later
    phone.screenshot(path=str(artifacts / "match-waiting-phone.png"))
    # Hana's wait is over: Ilkka goes straight to the table, and Hana's page follows.
    desktop = play_now(browser, server, "Ilkka", DESKTOP)
    for page in (phone, desktop):  # a failure says which page is where (its URL)
        expect(page).to_have_url(re.compile(r"/games/[^/]+$"), timeout=15_000)
    assert phone.url == desktop.url, "both at one table"
    for page in (phone, desktop):
        for name in ("Hana", "Ilkka"):
            page.locator("#scoresheet thead").get_by_text(name[:2].upper()).wait_for()
    # Hana came first: her turn; she plays it and Ilkka's page sees it live.
    play_turn(phone)
    desktop.get_by_text("Your turn").first.wait_for()

    # A game with friends meanwhile: never listed.
    friend = browser.new_context(viewport=PHONE).new_page()
    friend.goto(server.url)
    friend.get_by_label("Your name").fill("Fay")
    friend.get_by_role("button", name="Play with friends").click()
    friend.get_by_role("heading", name="Waiting for players").wait_for()

    watcher = browser.new_context(viewport=PHONE).new_page()
    watcher.goto(server.url)
    tables = watcher.locator("#open-tables li")
    tables.first.wait_for()
    assert tables.count() == 1
    assert "Hana" in tables.first.inner_text()
    assert "Ilkka" in tables.first.inner_text()
    watcher.screenshot(path=str(artifacts / "home-tables-phone.png"), full_page=True)
    tables.first.get_by_role("link", name="Watch").click()
    watcher.get_by_text("You are watching this game.").wait_for()
    assert watcher.url == phone.url
