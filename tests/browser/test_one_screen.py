"""A turn on one screen (issue 26): on a phone, the whole sheet of the player to move, the dice,
Roll, Confirm, the countdown and whose turn it is are in view together and uncovered, before
and after the third roll, with two, four and six players, light and dark, English and Hebrew."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.pages import say
from tests.catalogs import compile_catalogs
from tests.live_server import Server

pytestmark = pytest.mark.browser

PHONES = {"390x844": {"width": 390, "height": 844}, "360x740": {"width": 360, "height": 740}}


@pytest.fixture(scope="module", autouse=True)
def compiled_catalogs() -> None:
    compile_catalogs()


# Each element is checked where a person sees it: its box inside the viewport, and the
# element drawn at its centre inside it (the fixed tray must not cover a row).
PROBLEMS = """({selectors, seat}) => {
    const problems = [];
    const width = document.documentElement.clientWidth, height = window.innerHeight;
    const seen = (element, what, within) => {
        if (!element) { problems.push(`${what}: missing`); return; }
        const box = element.getBoundingClientRect();
        if (box.width === 0 || box.height === 0) { problems.push(`${what}: not shown`); return; }
        if (box.left < 0 || box.top < 0 || box.right > width + 0.5 || box.bottom > height + 0.5) {
            problems.push(`${what}: outside the viewport ${JSON.stringify(box)}`);
            return;
        }
        const x = box.left + box.width / 2, y = box.top + box.height / 2;
        const atCentre = document.elementFromPoint(x, y);
        if (!atCentre || !(within || element).contains(atCentre)) {
            problems.push(`${what}: covered by ${atCentre && atCentre.outerHTML.slice(0, 80)}`);
        }
    };
    if (window.scrollY !== 0) problems.push(`scrolled to ${window.scrollY}`);
    if (document.documentElement.scrollWidth > width) problems.push("the page scrolls sideways");
    document.querySelectorAll("#scoresheet tr").forEach(row => {
        const name = row.dataset.box || row.className || "heading";
        seen(row.children[0], `the name of ${name}`, row);
        seen(row.children[seat + 1], `the mover's cell of ${name}`, row);
    });
    for (const [what, selector] of Object.entries(selectors)) {
        const found = document.querySelectorAll(selector);
        if (found.length === 0) problems.push(`${what}: missing`);
        found.forEach((element, index) => seen(element, `${what} ${index + 1}`));
    }
    return problems;
}"""


def start_game(
    browser: Any, server: Server, code: str, viewport: dict[str, int], theme: str, players: int
) -> Any:
    context = browser.new_context(viewport=viewport, color_scheme=theme)
    context.add_cookies([{"name": "penta_lang", "value": code, "url": server.url}])
    page = context.new_page()
    page.goto(server.url)
    page.get_by_label(say(code, "Your name")).fill("Annabelle-Marie")
    page.get_by_role("button", name=say(code, "Play with friends")).click()
    add = page.get_by_role("button", name=say(code, "Add a computer player"))
    for number in range(1, players):
        add.click()
        page.locator("#lobby li").nth(number).wait_for()
    page.get_by_role("button", name=say(code, "Start the game")).click()
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    page.wait_for_function("() => document.readyState === 'complete' && window.htmx")
    return page


@pytest.fixture(scope="module")
def long_deadline_server(
    tmp_path_factory: pytest.TempPathFactory, strategy_table: Path
) -> Iterator[Server]:
    """One server for the twelve layouts below, each a game of its own on it (a server each
    cost the suite a start per layout). A long auto-confirm: the checks after the third roll
    race no deadline."""
    server = Server(
        tmp_path_factory.mktemp("one-screen") / "server",
        strategy_table,
        PENTA_AUTO_CONFIRM_SECONDS="60",
    )
    yield server
    server.stop()


@pytest.mark.parametrize("players", [2, 4, 6])
@pytest.mark.parametrize("phone", list(PHONES))
@pytest.mark.parametrize(("code", "theme"), [("en", "light"), ("he", "dark")])
def test_a_turn_fits_one_phone_screen(
    browser: Any,
    long_deadline_server: Server,
    artifacts: Path,
    code: str,
    theme: str,
    phone: str,
    players: int,
) -> None:
    page = start_game(browser, long_deadline_server, code, PHONES[phone], theme, players)
    tray = {"the dice": "#dice-tray button.die", "whose turn": "#dice-tray .tray-turn"}
    confirm = {"Confirm": "#dice-tray button.confirm"}
    for left in (2, 1, 0):
        page.locator("#dice-tray button.roll").click()
        if left:
            page.locator(f'#dice-tray[data-roll$="-{3 - left}"] button.roll').wait_for()
            controls = {**tray, **confirm, "Roll": "#dice-tray button.roll"}
        else:
            page.locator("#dice-tray .countdown").wait_for()
            controls = {**tray, **confirm, "the countdown": "#dice-tray .countdown"}
        if left == 1:
            continue
        problems = page.evaluate(PROBLEMS, {"selectors": controls, "seat": 0})
        moment = "first" if left == 2 else "third"
        name = f"one-screen-{phone}-{players}p-{code}-{theme}-{moment}.png"
        page.screenshot(path=str(artifacts / name), animations="disabled")
        assert problems == [], (moment, problems)
    turn = page.locator("#dice-tray .tray-turn").inner_text()
    assert say(code, "Your turn") in turn


def test_the_tray_says_who_is_rolling_to_the_others(
    browser: Any, start_server: Callable[..., Server]
) -> None:
    """A friend watching sees the mover's name in the tray, and the roll it is at."""
    server = start_server(PENTA_AUTO_CONFIRM_SECONDS="60")
    host = start_game(browser, server, "en", PHONES["390x844"], "light", 2)
    # A spectator sees the host rolling.
    watcher = browser.new_context(viewport=PHONES["390x844"]).new_page()
    watcher.goto(host.url)
    watcher.locator("#dice-tray .tray-turn").wait_for()
    host.locator("#dice-tray button.roll").click()
    watcher.locator('#dice-tray[data-roll$="-1"]').wait_for()
    assert watcher.locator("#dice-tray .tray-turn").inner_text() == (
        "Round 1 of 13 · Annabelle-Marie is rolling · roll 1 of 3"
    )


def test_six_columns_have_distinct_short_labels_with_the_names_beside(
    browser: Any, start_server: Callable[..., Server]
) -> None:
    server = start_server()
    page = start_game(browser, server, "en", PHONES["360x740"], "light", 6)
    labels = page.locator("#scoresheet thead th.player .seat-label").all_inner_texts()
    assert labels == ["AM", "C1", "C2", "C3", "C4", "C5"]
    headings = page.locator("#scoresheet thead th.player")
    assert headings.nth(1).get_attribute("title") == "Computer 1"
    # Screen readers hear the full name as the column's heading.
    assert page.get_by_role("columnheader", name="Computer 3").count() == 1
    chips = page.locator("#table .seat-label").all_inner_texts()
    assert chips == labels


def test_the_sixth_seat_moving_sees_its_own_column_and_every_box(
    browser: Any, start_server: Callable[..., Server], artifacts: Path
) -> None:
    """With six players the column kept in view is the mover's, wherever it sits."""
    server = start_server(PENTA_AUTO_CONFIRM_SECONDS="60", PENTA_COMPUTER_PACE_SECONDS="0.05")
    host = browser.new_context(viewport=PHONES["390x844"]).new_page()
    host.goto(server.url)
    host.get_by_label("Your name").fill("Hana")
    host.get_by_role("button", name="Play with friends").click()
    add = host.get_by_role("button", name="Add a computer player")
    for number in range(1, 5):
        add.click()
        host.locator("#lobby li").nth(number).wait_for()
    link = host.locator("#share-link").input_value()
    bob = browser.new_context(viewport=PHONES["360x740"]).new_page()
    bob.goto(link)
    bob.get_by_label("Your name").fill("Bartholomew")
    bob.get_by_role("button", name="Join the game").click()
    host.locator("#lobby li").nth(5).wait_for()
    host.get_by_role("button", name="Start the game").click()
    host.locator("#dice-tray button.roll").click()
    host.locator("#scoresheet tr.selectable").first.wait_for()
    host.locator("#scoresheet tr.selectable").first.click()
    host.locator("#dice-tray button.confirm").click()
    # The four computers play; then it is Bob's turn, in seat 5.
    bob.locator("#dice-tray button.roll:not([disabled])").wait_for(timeout=20_000)
    bob.wait_for_function("() => window.scrollY === 0 || (window.scrollTo(0, 0), false)")
    tray = {"the dice": "#dice-tray button.die", "whose turn": "#dice-tray .tray-turn"}
    for left in (2, 1, 0):
        bob.locator("#dice-tray button.roll").click()
        if left:
            bob.locator(f'#dice-tray[data-roll$="-{3 - left}"] button.roll').wait_for()
            controls = {**tray, "Roll": "#dice-tray button.roll"}
        else:
            bob.locator("#dice-tray .countdown").wait_for()
            controls = {**tray, "the countdown": "#dice-tray .countdown"}
        if left == 1:
            continue
        problems = bob.evaluate(PROBLEMS, {"selectors": controls, "seat": 5})
        moment = "first" if left == 2 else "third"
        bob.screenshot(path=str(artifacts / f"one-screen-seat-6-{moment}.png"))
        assert problems == [], (moment, problems)
