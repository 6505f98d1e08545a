"""Around the table in real browsers (host, friend, spectator): presence, your turn in the
tab title, reactions, an absent seat handed to the computer and taken back, reconnecting."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.test_multiplayer import host_game, join, play_turn
from tests.live_server import Server

pytestmark = pytest.mark.browser

YOUR_TURN = "● Your turn · Penta"


def seat(page: Any, number: int) -> Any:
    return page.locator(f'#table li[data-seat="{number}"]')


def wait_present(page: Any, number: int, present: bool, timeout: float = 5_000) -> None:
    expected = "true" if present else "false"
    page.locator(f'#table li[data-seat="{number}"][data-present="{expected}"]').wait_for(
        timeout=timeout
    )


def started(browser: Any, server: Server) -> tuple[Any, Any, str]:
    """Ann's and Bob's pages in a started game of theirs, and its link."""
    ann, link = host_game(browser, server)
    bob = join(browser, link, "Bob")
    ann.locator("#lobby").get_by_text("Bob").wait_for()
    ann.get_by_role("button", name="Start the game").click()
    bob.get_by_text("Ann to move").wait_for()
    return ann, bob, link


def test_presence_spectators_your_turn_and_reactions(
    browser: Any, server: Server, artifacts: Path
) -> None:
    ann, bob, link = started(browser, server)
    for page in (ann, bob):
        wait_present(page, 0, True)
        wait_present(page, 1, True)
    watcher = browser.new_context().new_page()
    watcher.goto(link)
    ann.get_by_text("1 watching").wait_for()
    watcher.get_by_text("1 watching").wait_for()
    assert watcher.locator(".reaction-buttons").count() == 0, "spectators do not react"

    ann.wait_for_function("title => document.title === title", arg=YOUR_TURN)
    assert bob.title() != YOUR_TURN
    play_turn(ann)
    bob.wait_for_function("title => document.title === title", arg=YOUR_TURN)
    ann.wait_for_function("title => document.title !== title", arg=YOUR_TURN)
    # The live table is one rendering for all: each page keeps its own "you", the spectator none.
    for page, number in ((ann, 0), (bob, 1)):
        you = page.locator("#table .tag", has_text=re.compile("^you$"))
        assert you.count() == 1
        assert seat(page, number).locator(".tag", has_text=re.compile("^you$")).count() == 1
    assert watcher.locator("#table .tag", has_text=re.compile("^you$")).count() == 0
    bob.screenshot(path=str(artifacts / "table-your-turn.png"))

    bob.get_by_role("button", name="Applause").click()
    for page in (ann, watcher):
        page.locator("#reactions [data-reaction=clap]").filter(has_text="Bob").wait_for(
            timeout=1_000
        )
    watcher.screenshot(path=str(artifacts / "table-reaction.png"))
    # Drawn, not an emoji a machine may have no font for; named for screen readers.
    shown = watcher.locator("#reactions [data-reaction=clap]")
    icon = shown.locator("svg.reaction-icon").bounding_box()
    assert icon
    assert icon["width"] >= 16
    assert icon["height"] >= 16
    assert "Applause" in shown.inner_text()
    for button in ann.locator(".reaction-button").all():
        assert button.locator("svg.reaction-icon").count() == 1
        assert button.get_attribute("aria-label")
    # A reaction shows for a few seconds, then goes.
    ann.locator("#reactions [data-reaction]").wait_for(state="detached", timeout=8_000)

    watcher.close()
    ann.locator("#table .spectators").wait_for(state="detached")


UNCOVERED = """element => {
  const box = element.getBoundingClientRect();
  const inside = box.top >= 0 && box.bottom <= innerHeight
    && box.left >= 0 && box.right <= innerWidth;
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return inside && hit !== null && element.contains(hit);
}"""
"""Whether the element is wholly on screen and nothing covers its middle."""


def test_on_a_phone_the_others_see_that_the_mover_is_away_and_can_hand_over_in_view(
    browser: Any, start_server: Callable[..., Server], artifacts: Path
) -> None:
    server = start_server(PENTA_ABSENT_SECONDS="2", PENTA_COMPUTER_PACE_SECONDS="0.2")
    ann, link = host_game(browser, server)
    bob = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    bob.goto(link)
    bob.get_by_label("Your name").fill("Bob")
    bob.get_by_role("button", name="Join the game").click()
    ann.locator("#lobby").get_by_text("Bob").wait_for()
    ann.get_by_role("button", name="Start the game").click()
    bob.get_by_text("Ann to move").wait_for()
    wait_present(bob, 0, True)
    away = bob.locator("#turn-away .turn-away-note")
    away.wait_for(state="detached", timeout=5_000)  # Ann is here: nothing said
    assert bob.locator("#turn-away").bounding_box() is None, "and the empty notice takes no room"
    watcher = browser.new_context().new_page()
    watcher.goto(link)
    wait_present(watcher, 0, True)
    ann.close()  # Ann leaves on her turn
    away.wait_for(timeout=5_000)
    assert away.inner_text().strip() == "Ann, whose turn it is, is away"
    assert away.evaluate(UNCOVERED), "said above the sheet, on screen"
    hand_over = bob.get_by_role("button", name="Let the computer play for Ann")
    hand_over.wait_for(timeout=6_000)
    assert hand_over.evaluate(UNCOVERED), "the hand-over is where Bob looks, not below the sheet"
    assert hand_over.inner_text() == "Let the computer play for Ann"  # the space is kept
    bob.screenshot(path=str(artifacts / "table-away-phone.png"))
    # A spectator is told too, but the hand-over is for the players. (The spectator stays to
    # the end: its leaving would swap Bob's table, hand-over included, under the checks.)
    watcher.locator("#turn-away .turn-away-note").wait_for()
    assert watcher.locator("#turn-away .hand-over").count() == 0
    hand_over.click()
    bob.get_by_text("The computer plays for Ann until they return").wait_for()
    away.wait_for(state="detached")  # the computer plays: nobody is waiting for Ann now
    watcher.close()


def test_an_absent_seat_is_handed_to_the_computer_and_taken_back(
    browser: Any, start_server: Callable[..., Server], artifacts: Path
) -> None:
    server = start_server(PENTA_ABSENT_SECONDS="2", PENTA_COMPUTER_PACE_SECONDS="0.2")
    ann, bob, link = started(browser, server)
    wait_present(bob, 0, True)
    context = ann.context
    ann.close()  # Ann closes her tab on her turn
    wait_present(bob, 0, False, timeout=5_000)
    bob.screenshot(path=str(artifacts / "table-host-away.png"))
    hand_over = bob.get_by_role("button", name="Let the computer play for Ann")
    hand_over.wait_for(timeout=6_000)  # once she has been away PENTA_ABSENT_SECONDS
    hand_over.click()
    bob.get_by_text("The computer plays for Ann until they return").wait_for()
    bob.screenshot(path=str(artifacts / "table-stand-in.png"))
    # The server plays Ann's turn; then it is Bob's.
    bob.get_by_role("button", name="Roll (3 left)").wait_for(timeout=15_000)
    assert bob.locator("#scoresheet tbody td.used:nth-child(2)").count() == 1

    ann = context.new_page()  # Ann comes back: the seat is hers again
    ann.goto(link)
    wait_present(bob, 0, True)
    bob.get_by_text("The computer plays for Ann until they return").wait_for(state="detached")
    play_turn(bob)
    ann.get_by_role("button", name="Roll (3 left)").wait_for()  # not played for her
    ann.wait_for_function("title => document.title === title", arg=YOUR_TURN)
    ann.screenshot(path=str(artifacts / "table-taken-back.png"))


# Set on the page once htmx has opened its live stream (its own event, htmx:sseOpen).
STREAM_OPEN = """
document.addEventListener("htmx:sseOpen", () => { window.__streamOpen = true; });
"""


def test_the_reconnecting_banner_shows_while_the_server_is_away(
    browser: Any, server: Server, artifacts: Path
) -> None:
    ann, _link = host_game(browser, server)
    # The banner is for a stream that drops; a page whose stream has not opened yet has
    # nothing to drop. The game page is a new document: wait until its stream is open.
    ann.context.add_init_script(STREAM_OPEN)
    ann.get_by_role("button", name="Start the game").click()
    ann.get_by_role("button", name="Roll (3 left)").wait_for()
    ann.wait_for_function("() => window.__streamOpen === true")
    banner = ann.get_by_role("status").filter(has_text="Reconnecting…")
    assert not banner.is_visible()
    server.kill()
    banner.wait_for(timeout=5_000)
    assert ann.locator("#game .board").evaluate("board => board.inert")
    ann.screenshot(path=str(artifacts / "table-reconnecting.png"))
    server.restart()
    banner.wait_for(state="hidden", timeout=15_000)
    assert not ann.locator("#game .board").evaluate("board => board.inert")
    ann.get_by_role("button", name="Roll (3 left)").click()
    ann.get_by_role("button", name="Roll (2 left)").wait_for()
    assert re.search(r"/games/[\w-]+$", ann.url)


# Spies on the browser's own WebAudio and Notification (the real ones still run), and a way
# to say the tab is hidden, which a headless browser never is by itself.
SPIES = """
window.__sounds = 0;
window.__notes = [];
const RealAudio = window.AudioContext;
window.AudioContext = class extends RealAudio {
  createOscillator() { window.__sounds += 1; return super.createOscillator(); }
};
const RealNotification = window.Notification;
window.Notification = class extends RealNotification {
  constructor(title, options) { super(title, options); window.__notes.push(title); }
};
Object.defineProperty(document, "hidden", {
  configurable: true, get: () => window.__hidden === true,
});
"""


def test_turn_alerts_play_only_when_asked_for_and_are_remembered(
    browser: Any, server: Server
) -> None:
    ann, link = host_game(browser, server)
    ann.context.add_init_script(SPIES)
    ann.reload()
    context = browser.new_context()
    context.grant_permissions(["notifications"], origin=server.url)
    context.add_init_script(SPIES)
    bob = context.new_page()
    bob.goto(link)
    bob.get_by_label("Your name").fill("Bob")
    bob.get_by_role("button", name="Join the game").click()
    ann.locator("#lobby").get_by_text("Bob").wait_for()
    ann.get_by_role("button", name="Start the game").click()
    bob.get_by_text("Ann to move").wait_for()

    bob.get_by_text("Tell me when it is my turn").click()
    bob.get_by_label("Play a short sound").check()
    bob.get_by_label("Show a notification when this tab is hidden").check()
    assert bob.evaluate("window.__sounds") == 2  # the chime, heard once as it is chosen
    bob.evaluate("window.__sounds = 0; window.__hidden = true")
    play_turn(ann)
    bob.wait_for_function("() => window.__sounds === 2 && window.__notes.length === 1")
    assert bob.evaluate("window.__notes") == [YOUR_TURN]

    play_turn(bob)
    ann.wait_for_function("title => document.title === title", arg=YOUR_TURN)
    assert ann.evaluate("[window.__sounds, window.__notes]") == [0, []]  # Ann asked for nothing

    bob.reload()  # the choices are kept by this browser
    bob.get_by_text("Tell me when it is my turn").click()
    assert bob.get_by_label("Play a short sound").is_checked()
    assert bob.get_by_label("Show a notification when this tab is hidden").is_checked()
    assert not ann.get_by_label("Play a short sound").is_checked()
