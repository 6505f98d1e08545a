"""The review and the statistics on a phone (issue 15, item 4): nothing spills sideways at
390 px, the chart's labels read at 12 px or more, luck is explained in a sentence, and two
computers in one game are told apart from each other and from the person."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.live_server import Server

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}

EFFECTIVE_LABEL_SIZES = """() => Array.from(document.querySelectorAll('.chart svg text'), text => {
    const svg = text.ownerSVGElement;
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return parseFloat(getComputedStyle(text).fontSize) * scale;
})"""
"""The size at which each chart label is drawn, in CSS pixels (its font size in the SVG's units
times the SVG's scale)."""


def game_with_two_computers(server: Server) -> str:
    """Ann against Computer 1 and Computer 2, played to the end through the API."""
    with httpx.Client(base_url=server.url + "/api/v1", timeout=10) as client:
        created = client.post("/games", json={"name": "Ann"}).json()
        game_id = created["game"]["id"]
        ann = {"Authorization": f"Bearer {created['token']}"}
        for _ in range(2):
            client.post(f"/games/{game_id}/computers", headers=ann).raise_for_status()
        client.post(f"/games/{game_id}/start", headers=ann).raise_for_status()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            game = client.get(f"/games/{game_id}").json()
            if game["status"] == "finished":
                return str(game_id)
            if game["turn"] != 0:
                time.sleep(0.05)  # the computers' pace
                continue
            rolled = client.post(f"/games/{game_id}/roll", json={"hold": []}, headers=ann)
            box = next(iter(rolled.json()["options"]))
            client.post(f"/games/{game_id}/score", json={"box": box}, headers=ann)
        raise AssertionError("the game did not finish")


def no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide"


def test_review_and_statistics_fit_a_phone_and_tell_computers_apart(
    browser: Any, start_server: Callable[..., Server], artifacts: Path
) -> None:
    server = start_server(PENTA_COMPUTER_PACE_SECONDS="0.02")
    game_id = game_with_two_computers(server)
    page = browser.new_context(viewport=PHONE).new_page()

    page.goto(f"{server.url}/games/{game_id}/review")
    page.get_by_role("heading", name="Game review").wait_for()
    no_sideways_scroll(page)
    sizes = page.evaluate(EFFECTIVE_LABEL_SIZES)
    assert len(sizes) > 13, "the rounds and the totals are labelled"
    assert min(sizes) >= 12, sizes
    assert page.get_by_text(
        "Luck is how many points the dice gave above (+) or below (\u2212) what the same choices "
        "would bring with average rolls."
    ).is_visible()
    rows = page.locator("table.review-summary tbody tr")
    tags = [rows.nth(seat).locator(".tag.computer").all_inner_texts() for seat in range(3)]
    assert tags == [[], ["computer, seat 2"], ["computer, seat 3"]]
    page.screenshot(path=str(artifacts / "review-phone.png"), full_page=True)
    page.locator("details summary").first.click()  # every decision, opened: still fits
    no_sideways_scroll(page)

    page.goto(f"{server.url}/stats")
    page.get_by_role("heading", name="Statistics").wait_for()
    no_sideways_scroll(page)
    sheets = page.locator("ol.best-sheets li")
    assert sheets.count() == 3
    labels = {
        sheet.locator("a").inner_text(): sheet.locator(".tag.computer").all_inner_texts()
        for sheet in sheets.all()
    }
    assert labels == {
        "Ann": [],
        "Computer 1": ["computer, seat 2"],
        "Computer 2": ["computer, seat 3"],
    }
    page.screenshot(path=str(artifacts / "stats-phone.png"), full_page=True)
