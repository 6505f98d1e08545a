"""An action the server could not take, or that got no answer at all: the player is told, in
the page, and the game is as it was; the next click goes through."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.test_solo_game import open_new_game
from tests.browser.test_table import started
from tests.live_server import Server

pytestmark = pytest.mark.browser

BUSY = "the server is busy: try again in a moment"
NO_ANSWER = "the server did not answer: try again in a moment"

HOLD_THE_LOCK = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
connection.execute("ROLLBACK")
"""
"""Another process holding SQLite's write lock until it reads a line."""


def alert(page: Any, text: str) -> Any:
    """The page's alert that says ``text`` (shown or not)."""
    return page.locator("#flash").get_by_role("alert", include_hidden=True).filter(has_text=text)


@pytest.mark.single_kind  # SQLite's own lock
def test_a_busy_database_is_told_and_the_roll_goes_through_once_it_is_free(
    browser: Any, start_server: Callable[..., Server], artifacts: Path
) -> None:
    server = start_server(PENTA_DATABASE_WAIT_SECONDS="1")
    page = open_new_game(browser, server)
    roll = page.get_by_role("button", name="Roll (3 left)")
    roll.wait_for()
    database = Path(server.environment["PENTA_DATA_DIR"]) / "penta.db"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_LOCK, str(database)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdin is not None
    assert holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "locked"
        roll.click()
        alert(page, BUSY).wait_for(timeout=10_000)
        page.screenshot(path=str(artifacts / "no-answer-busy.png"))
        assert roll.is_visible(), "the roll was not taken: three are still left"
        assert not alert(page, NO_ANSWER).is_visible()
    finally:
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(timeout=10)
    roll.click()
    page.get_by_role("button", name="Roll (2 left)").wait_for()
    assert alert(page, BUSY).count() == 0, "the answer to the roll clears the message"


def test_an_action_with_no_answer_or_a_proxy_error_page_is_told(
    browser: Any, server: Server, artifacts: Path
) -> None:
    """What the browser meets when the connection fails, and when a proxy answers for a
    worker that does not (nginx's own 502 page): both made by Playwright on the roll's
    request, the server itself untouched."""
    page = open_new_game(browser, server)
    rolls = "**/games/*/roll"

    page.route(rolls, lambda route: route.abort("connectionrefused"))
    page.get_by_role("button", name="Roll (3 left)").click()
    alert(page, NO_ANSWER).wait_for()
    assert page.get_by_role("button", name="Roll (3 left)").is_visible()
    page.unroute(rolls)
    page.get_by_role("button", name="Roll (3 left)").click()
    page.get_by_role("button", name="Roll (2 left)").wait_for()
    assert not alert(page, NO_ANSWER).is_visible(), "the answer to the roll clears it"

    page.route(
        rolls,
        lambda route: route.fulfill(
            status=502,
            content_type="text/html",
            body="<html><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>",
        ),
    )
    page.get_by_role("button", name="Roll (2 left)").click()
    alert(page, NO_ANSWER).wait_for()
    page.screenshot(path=str(artifacts / "no-answer-proxy.png"))
    assert page.get_by_text("Bad Gateway").count() == 0, "the proxy's page is not swapped in"
    assert page.get_by_role("button", name="Roll (2 left)").is_visible()
    page.unroute(rolls)
    page.get_by_role("button", name="Roll (2 left)").click()
    page.get_by_role("button", name="Roll (1 left)").wait_for()
    assert not alert(page, NO_ANSWER).is_visible()


def test_a_reaction_with_no_answer_is_told_and_the_next_one_clears_it(
    browser: Any, server: Server
) -> None:
    """A reaction's answer is an empty 204: it too hides the message again."""
    ann, bob, _link = started(browser, server)
    reactions = "**/games/*/reactions"
    bob.route(reactions, lambda route: route.abort("connectionrefused"))
    bob.get_by_role("button", name="Applause").click()
    alert(bob, NO_ANSWER).wait_for()
    assert ann.locator("#reactions [data-reaction]").count() == 0
    bob.unroute(reactions)
    bob.get_by_role("button", name="Applause").click()
    ann.locator("#reactions [data-reaction=clap]").filter(has_text="Bob").wait_for()
    alert(bob, NO_ANSWER).wait_for(state="hidden")
