"""Dark mode (the system's choice, a toggle remembered by the browser) and installability (the
service worker registers and shows the offline page) in a real Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.pages import open_menu
from tests.live_server import Server

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def background(page: Any) -> str:
    return str(page.evaluate("getComputedStyle(document.documentElement).backgroundColor"))


def tick(toggle: Any) -> str:
    return str(toggle.evaluate("button => getComputedStyle(button, '::before').content"))


def test_the_page_follows_the_system_theme_and_the_toggle_is_remembered(
    browser: Any, server: Server, artifacts: Path
) -> None:
    light = browser.new_context(viewport=PHONE, color_scheme="light").new_page()
    light.goto(server.url)
    open_menu(light)
    toggle = light.get_by_role("button", name="Dark theme")
    assert toggle.get_attribute("aria-pressed") == "false"
    light_colour = background(light)

    context = browser.new_context(viewport=PHONE, color_scheme="dark")
    dark = context.new_page()
    dark.goto(server.url)
    open_menu(dark)
    toggle = dark.get_by_role("button", name="Dark theme")
    assert toggle.get_attribute("aria-pressed") == "true"
    dark_colour = background(dark)
    assert dark_colour != light_colour
    assert dark_colour == "rgb(17, 20, 24)"
    dark.screenshot(path=str(artifacts / "home-phone-dark.png"))
    # The state shows, not only to screen readers: a tick before the label while it is on.
    assert tick(toggle) != "none"

    toggle.click()  # this browser prefers light, whatever the system says
    assert toggle.get_attribute("aria-pressed") == "false"
    assert tick(toggle) == "none"
    assert background(dark) == light_colour
    dark.goto(server.url + "/rules")
    assert background(dark) == light_colour, "the choice is remembered across pages"
    open_menu(dark)
    assert dark.get_by_role("button", name="Dark theme").get_attribute("aria-pressed") == "false"


def test_the_service_worker_registers_and_shows_the_offline_page(
    browser: Any, server: Server, artifacts: Path
) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(server.url)
    scope = page.evaluate("() => navigator.serviceWorker.ready.then(r => r.scope)")
    assert scope == server.url + "/"
    page.reload()
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    context.set_offline(True)
    page.goto(server.url + "/rules")
    page.get_by_role("heading", name="You are offline").wait_for()
    assert background(page) == "rgb(247, 245, 240)", "the stylesheet came from the cache"
    page.screenshot(path=str(artifacts / "offline-phone.png"))
    context.set_offline(False)
    page.get_by_role("link", name="Try again").click()
    page.get_by_role("button", name="New game").wait_for()
