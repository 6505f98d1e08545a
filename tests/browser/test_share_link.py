"""The host's share link stays absolute while friends join, and the copy button copies it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.test_multiplayer import join
from tests.live_server import Server

pytestmark = pytest.mark.browser


def test_the_share_link_is_absolute_after_each_join_and_copy_copies_it(
    browser: Any, server: Server
) -> None:
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(server.url)
    page.get_by_label("Your name").fill("Ann")
    page.get_by_role("button", name="Play with friends").click()
    page.get_by_role("heading", name="Waiting for players").wait_for()
    game_id = page.url.rsplit("/", 1)[1]
    expected = f"{server.url}/games/{game_id}"
    link = page.locator("#share-link")
    assert link.input_value() == expected
    for count, name in enumerate(("Bob", "Cy", "Di"), start=2):
        join(browser, expected, name)
        page.get_by_text(f"({count}/6)").wait_for()
        assert link.input_value() == expected, f"after {count - 1} join(s)"
    page.get_by_role("button", name="Copy link").click()
    page.get_by_role("button", name="Copied").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == expected
    context.close()
