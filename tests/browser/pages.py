"""What the browser tests share: a page in a language, and the words it shows in it."""

from __future__ import annotations

from typing import Any

from app import i18n
from tests.live_server import Server

MOTION = "no-preference"
"""``reduced_motion`` for a page that shows the dice tumbling (the browser fixture's pages
ask for reduced motion otherwise: tests/browser/conftest.py)."""


def say(code: str, message: str) -> str:
    """``message`` as the page shows it in the language ``code``."""
    with i18n.language(code):
        return i18n.gettext(message)


def roll_name(code: str, left: int) -> str:
    """The Roll button's name in ``code`` with ``left`` rolls left."""
    with i18n.language(code):
        return i18n.ngettext("Roll (%(num)d left)", "Roll (%(num)d left)", left) % {"num": left}


def new_page(
    browser: Any, server: Server, code: str, viewport: dict[str, int], **options: Any
) -> Any:
    """A page of a new browser context whose language cookie chooses ``code``."""
    context = browser.new_context(viewport=viewport, **options)
    context.add_cookies([{"name": "penta_lang", "value": code, "url": server.url}])
    return context.new_page()


def open_menu(page: Any, code: str = "en") -> None:
    """Open the header's menu, where a phone keeps the site's links, theme and language."""
    toggle = page.get_by_role("button", name=say(code, "Menu"))
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.click()


def fetched(page: Any, answers: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """``answers`` (held by a ``page.route`` handler that appends ``(route, route.fetch())``)
    once one has been fetched. The handler runs when Playwright dispatches it, and fetches
    then: under load the page may show the action's echo first."""
    while not answers:
        page.wait_for_timeout(20)
    return answers
