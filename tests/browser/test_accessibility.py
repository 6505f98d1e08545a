"""axe-core (npm, installed by `make test` with `npm ci`) finds no serious or critical
violation on any page, in English and Hebrew, in the light and the dark theme."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.live_server import Server
from tests.scenarios import BOXES_BEFORE_SACRIFICE, SACRIFICE_DICE

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
SETTINGS = [(code, theme) for code in ("en", "he") for theme in ("light", "dark")]


def serious_violations(page: Any, axe_source: str) -> list[str]:
    """axe's serious and critical findings on the page as it is, one line each."""
    page.evaluate(axe_source)  # through the debugger protocol: the page's CSP is not loosened
    results = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    assert len(results["passes"]) > 5, "axe checked the page"
    return [
        f"{violation['id']} ({violation['impact']}): {node['target']} {node['failureSummary']}"
        for violation in results["violations"]
        if violation["impact"] in ("serious", "critical")
        for node in violation["nodes"]
    ]


def check_every_setting(
    page: Any, server: Server, axe_source: str, state: str, shots: Path | None = None
) -> list[str]:
    """Reloads the page in each language and theme; the findings, named by where they were.
    With ``shots``, a screenshot of each into that folder."""
    found = []
    for code, theme in SETTINGS:
        page.context.add_cookies([{"name": "penta_lang", "value": code, "url": server.url}])
        page.emulate_media(color_scheme=theme)
        page.reload()
        page.wait_for_load_state("load")
        if shots is not None:
            name = f"{state.replace(' ', '-')}-phone-{code}-{theme}.png"
            page.screenshot(path=str(shots / name), animations="disabled")
        where = f"{state} {code} {theme}"
        found += [f"{where}: {line}" for line in serious_violations(page, axe_source)]
    return found


def in_english(page: Any, server: Server) -> None:
    """Back to English and the light theme, for the clicks that follow."""
    page.context.add_cookies([{"name": "penta_lang", "value": "en", "url": server.url}])
    page.emulate_media(color_scheme="light")


def test_no_serious_violation_on_any_page(
    browser: Any, start_server: Callable[..., Server], axe_source: str, artifacts: Path
) -> None:
    server = start_server(PENTA_DICE_SCRIPT=SACRIFICE_DICE)
    page = browser.new_context(viewport=PHONE).new_page()
    found: list[str] = []

    page.goto(server.url)
    found += check_every_setting(page, server, axe_source, "home")
    page.goto(server.url + "/rules")
    found += check_every_setting(page, server, axe_source, "rules")
    page.goto(server.url + "/stats")
    found += check_every_setting(page, server, axe_source, "stats")

    in_english(page, server)
    page.goto(server.url)
    page.get_by_label("Your name").fill("Ann")
    page.get_by_role("button", name="Play with friends").click()
    page.get_by_role("heading", name="Waiting for players").wait_for()
    found += check_every_setting(page, server, axe_source, "lobby")

    in_english(page, server)
    page.goto(server.url)
    page.get_by_label("Your name").fill("Ann")
    page.get_by_role("button", name="New game").click()
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    game_url = page.url
    page.get_by_role("button", name="Roll (3 left)").click()
    page.get_by_role("button", name="Roll (2 left)").wait_for()
    found += check_every_setting(page, server, axe_source, "game mid-turn", artifacts)

    in_english(page, server)
    page.reload()
    for used, box in enumerate(BOXES_BEFORE_SACRIFICE, start=1):
        if used > 1:
            page.get_by_role("button", name="Roll (3 left)").click()
        page.get_by_role("button", name="Roll (2 left)").wait_for()
        page.locator(f"#scoresheet input[name=box][value={box}]").check()
        page.get_by_role("button", name="Confirm turn").click()
        page.wait_for_function(
            "n => document.querySelectorAll('#scoresheet td.used').length === n", arg=used
        )
    page.get_by_role("button", name="Roll (3 left)").click()
    page.get_by_text("No open box scores: one must be sacrificed").wait_for()
    found += check_every_setting(page, server, axe_source, "sacrifice")

    in_english(page, server)
    page.reload()
    for box in ("full_house", "large_straight"):
        if box == "large_straight":
            page.get_by_role("button", name="Roll (3 left)").click()
        page.get_by_role("button", name="Roll (2 left)").wait_for()
        page.locator(f"#scoresheet input[name=box][value={box}]").check()
        page.get_by_role("button", name="Confirm turn").click()
        page.locator(f'#scoresheet tr[data-box="{box}"] td.used').wait_for()
    page.get_by_role("heading", name="Game over").wait_for()
    found += check_every_setting(page, server, axe_source, "game over", artifacts)

    page.goto(game_url + "/review")
    found += check_every_setting(page, server, axe_source, "review")
    page.goto(server.url + "/stats")
    found += check_every_setting(page, server, axe_source, "stats with a game")

    # Hints: the marks on the dice and the box, the sentence, the folded figures.
    in_english(page, server)
    page.goto(server.url)
    page.get_by_label("Your name").fill("Bob")
    page.get_by_role("button", name="New game").click()
    page.wait_for_url(re.compile(r"/games/[\w-]+$"))
    page.get_by_role("button", name="Show hints").click()
    page.get_by_role("button", name="Hide hints").wait_for()
    page.get_by_role("button", name="Roll (3 left)").click()
    page.locator("#hints .suggestion").wait_for()
    found += check_every_setting(page, server, axe_source, "game with hints")
    assert found == [], "\n".join(found)


def test_the_check_finds_a_violation_where_there_is_one(browser: Any, axe_source: str) -> None:
    page = browser.new_page()
    page.set_content(
        '<html lang="en"><title>t</title><main><p style="color:#aaa;background:#fff">faint</p>'
        '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></main></html>'
    )
    found = serious_violations(page, axe_source)
    assert any(line.startswith("image-alt (critical)") for line in found), found
    assert any(line.startswith("color-contrast (serious)") for line in found), found
