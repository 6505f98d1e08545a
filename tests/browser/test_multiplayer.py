"""Friends in separate browsers: lobby by link, a whole game live, spectators, computers."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.pages import MOTION
from tests.live_server import Server

pytestmark = pytest.mark.browser


def host_game(browser: Any, server: Server, name: str = "Ann") -> tuple[Any, str]:
    """The host's page in the lobby of a new game with friends, and the share link."""
    page = browser.new_context().new_page()
    page.goto(server.url)
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Play with friends").click()
    page.get_by_role("heading", name="Waiting for players").wait_for()
    return page, page.locator("#share-link").input_value()


def join(browser: Any, link: str, name: str) -> Any:
    page = browser.new_context().new_page()
    page.goto(link)
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Join the game").click()
    page.get_by_text("Waiting for the host to start the game").wait_for()
    return page


def play_turn(page: Any) -> None:
    """Roll once, hold the first die, roll again, and confirm the first open box."""
    used = page.locator("#scoresheet td.used").count()
    page.get_by_role("button", name="Roll (3 left)").click()
    page.get_by_role("button", name="Roll (2 left)").wait_for()
    page.get_by_role("button", name=re.compile(r"^die 1: ")).click()
    page.get_by_role("button", name=re.compile(r"^die 1: \w+, held$")).wait_for()
    page.get_by_role("button", name="Roll (2 left)").click()
    page.get_by_role("button", name="Roll (1 left)").wait_for()
    page.locator("#scoresheet input[name=box]").first.check()
    page.get_by_role("button", name="Confirm turn").click()
    try:
        page.wait_for_function(
            "n => document.querySelectorAll('#scoresheet td.used').length > n", arg=used
        )
    except Exception as error:  # playwright's TimeoutError, imported lazily
        raise AssertionError(f"the box was not recorded; the page: {page_state(page)}") from error


def page_state(page: Any) -> str:
    """What a page shows of its turn, for a failure to say."""
    return str(
        page.evaluate(
            """() => ({
      version: document.getElementById('dice-tray').dataset.version,
      turnFields: [...document.querySelectorAll('#scoresheet input[type=hidden]')]
        .filter(field => field.name !== 'csrf_token').map(field => field.name + '=' + field.value),
      boxes: document.querySelectorAll('#scoresheet input[name=box]').length,
      checked: document.querySelector('#scoresheet input[name=box]:checked')?.value ?? null,
      reconnecting: !document.getElementById('reconnecting').hidden,
      inert: document.querySelector('#game .board').inert,
      inFlight: document.querySelectorAll('.htmx-request').length,
      flash: document.getElementById('flash').innerText.trim(),
      buttons: [...document.querySelectorAll('#dice-tray button')].map(b => b.innerText.trim()),
    })"""
        )
    )


def totals(page: Any) -> list[str]:
    return page.locator("#scoresheet tr.total td").all_inner_texts()


@pytest.mark.every_kind
def test_two_friends_play_a_whole_game_and_a_spectator_watches(
    browser: Any, server: Server, artifacts: Path
) -> None:
    ann, link = host_game(browser, server)
    assert re.fullmatch(rf"{re.escape(server.url)}/games/[\w-]+", link)
    bob = join(browser, link, "Bob")
    ann.locator("#lobby").get_by_text("Bob").wait_for()  # the lobby updates live
    ann.get_by_role("button", name="Start the game").click()
    bob.get_by_text("Ann to move").wait_for()  # Bob's lobby followed to the game by itself
    watcher = browser.new_context(reduced_motion=MOTION).new_page()  # sees the dice tumble
    watcher.goto(link)
    watcher.get_by_text("You are watching this game.").wait_for()
    assert watcher.get_by_role("button", name=re.compile(r"^Roll")).count() == 0

    for round_number in range(1, 14):
        for mover, other in ((ann, bob), (bob, ann)):
            mover.get_by_text(f"Round {round_number} of 13").wait_for()
            mover.get_by_role("button", name="Roll (3 left)").wait_for()
            assert other.get_by_role("button", name=re.compile(r"^Roll")).count() == 0
            play_turn(mover)
        if round_number == 4:
            bob.reload()  # a reload keeps the seat
            ann.screenshot(path=str(artifacts / "multiplayer-desktop.png"), full_page=True)
            watcher.wait_for_function(
                "n => document.querySelectorAll('#scoresheet td.used').length === n", arg=8
            )
            watched = watcher.locator("#scoresheet td.used").all_inner_texts()
            assert watched == ann.locator("#scoresheet td.used").all_inner_texts()

    for page in (ann, bob, watcher):
        page.get_by_role("heading", name="Game over").wait_for()
    assert totals(ann) == totals(bob) == totals(watcher)
    bob.get_by_role("button", name="Offer a rematch").click()
    bob.get_by_role("heading", name="Waiting for players").wait_for()  # Bob hosts the rematch
    ann.get_by_text("Bob offers a rematch").wait_for()  # nobody is pulled in: Ann is asked
    ann.get_by_role("button", name="Join the rematch").click()
    bob.locator("#lobby").get_by_text("Ann").wait_for()
    bob.get_by_role("button", name="Start the game").click()
    bob.get_by_role("button", name="Roll (3 left)").wait_for()
    ann.get_by_text("Bob to move").wait_for()  # Ann's lobby followed, seated
    assert ann.url == bob.url != link


def test_a_stale_tab_is_refused_and_resyncs(browser: Any, server: Server) -> None:
    ann, link = host_game(browser, server)
    ann.get_by_role("button", name="Start the game").click()
    ann.get_by_role("button", name="Roll (3 left)").wait_for()
    stale = ann.context.new_page()
    stale.route("**/events*", lambda route: route.abort())  # this tab hears nothing live
    stale.goto(link)
    stale.get_by_role("button", name="Roll (3 left)").wait_for()
    ann.get_by_role("button", name="Roll (3 left)").click()
    ann.get_by_role("button", name="Roll (2 left)").wait_for()
    stale.get_by_role("button", name="Roll (3 left)").click()
    stale.get_by_role("alert").filter(has_text="the game has moved on").wait_for()
    stale.get_by_role("button", name="Roll (2 left)").wait_for()
    dice = [d.get_attribute("data-value") for d in ann.locator("#dice-tray button.die").all()]
    resynced = [d.get_attribute("data-value") for d in stale.locator("#dice-tray button.die").all()]
    assert resynced == dice


def test_a_computer_seat_plays_by_itself(browser: Any, start_server: Callable[..., Server]) -> None:
    server = start_server(PENTA_COMPUTER_PACE_SECONDS="0.05")
    ann, _link = host_game(browser, server)
    ann.get_by_role("button", name="Add a computer player").click()
    ann.locator("#lobby").get_by_text("Computer 1").wait_for()
    ann.get_by_role("button", name="Start the game").click()
    for round_number in range(1, 14):
        ann.get_by_text(f"Round {round_number} of 13").wait_for()
        ann.get_by_role("button", name="Roll (3 left)").wait_for(timeout=15_000)
        play_turn(ann)
    ann.get_by_role("heading", name="Game over").wait_for(timeout=15_000)
    computer_cells = ann.locator("#scoresheet tbody td.used:nth-child(3)")
    assert computer_cells.count() == 13


def test_the_host_removes_a_computer_and_a_friend_from_the_lobby(
    browser: Any, server: Server
) -> None:
    ann, link = host_game(browser, server)
    bob = join(browser, link, "Bob")
    ann.get_by_role("button", name="Add a computer player").click()
    players = ann.locator("ol.players li")
    players.filter(has_text="Computer 1").wait_for()
    assert bob.get_by_role("button", name=re.compile("^Remove")).count() == 0, "host only"
    ann.get_by_role("button", name="Remove Computer 1").click()
    players.filter(has_text="Computer 1").wait_for(state="detached")
    ann.get_by_role("button", name="Remove Bob").click()
    players.filter(has_text="Bob").wait_for(state="detached")
    # Bob's own page, live: he is no longer seated and may join again.
    bob.get_by_role("button", name="Join the game").wait_for()
    assert players.count() == 1
    bob.get_by_label("Your name").fill("Bob")
    bob.get_by_role("button", name="Join the game").click()
    players.filter(has_text="Bob").wait_for()
    ann.get_by_role("button", name="Start the game").click()
    ann.get_by_text("Round 1 of 13").wait_for()


def test_the_invitee_sees_who_invited_them_first_and_the_host_shares_natively(
    browser: Any, server: Server
) -> None:
    context = browser.new_context()
    # Chromium on a desktop has no share sheet: this one records what it was given.
    context.add_init_script(
        "Object.defineProperty(navigator, 'share', "
        "{value: (data) => { window.shared = data; return Promise.resolve(); }});"
    )
    host = context.new_page()
    host.goto(server.url)
    host.get_by_label("Your name").fill("Hana")
    host.get_by_role("button", name="Play with friends").click()
    host.get_by_role("heading", name="Waiting for players").wait_for()
    link = host.locator("#share-link").input_value()
    host.get_by_role("button", name="Share", exact=True).click()
    host.wait_for_function("window.shared !== undefined")
    assert host.evaluate("window.shared.url") == link

    guest = browser.new_context().new_page()
    guest.goto(link)
    invited = guest.get_by_text("Hana invited you to Penta.")
    invited.wait_for()
    assert guest.get_by_role("button", name="Share", exact=True).is_hidden(), "no share sheet"

    def top(locator: Any) -> float:
        return float(locator.bounding_box()["y"])

    name = guest.get_by_label("Your name")
    assert top(invited) < top(name) < top(guest.locator("#share-link")), "the join form first"
    assert host.get_by_text("invited you").count() == 0, "the host is not invited"
    guest.close()
    host.close()


def test_an_empty_name_is_refused_in_the_pages_language(browser: Any, server: Server) -> None:
    page = browser.new_context(locale="fr-FR").new_page()
    page.goto(server.url)
    name = page.locator("#name")
    assert name.evaluate("field => field.form.reportValidity()") is False
    assert name.evaluate("field => field.validationMessage") == (
        "Saisissez d'abord votre nom : les autres le verront."
    )
    name.fill("Ann")
    assert name.evaluate("field => field.form.checkValidity()") is True
    page.context.close()
