"""A person opens the review of a finished game: the chart and the costliest mistakes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.live_server import Server

pytestmark = pytest.mark.browser


def finished_game(server: Server) -> str:
    """A two-player game played to the end through the API, Bob always taking the first box."""
    with httpx.Client(base_url=server.url, timeout=10) as client:
        created = client.post("/api/v1/games", json={"name": "Ann"}).json()
        game_id, ann = created["game"]["id"], created["token"]
        bob = client.post(f"/api/v1/games/{game_id}/players", json={"name": "Bob"}).json()["token"]
        client.post(f"/api/v1/games/{game_id}/start", headers={"Authorization": f"Bearer {ann}"})
        for _ in range(13):
            for token in (ann, bob):
                headers = {"Authorization": f"Bearer {token}"}
                game = client.post(
                    f"/api/v1/games/{game_id}/roll", json={"hold": []}, headers=headers
                ).json()
                if token == ann:
                    advice = client.get(f"/api/v1/games/{game_id}/advice", headers=headers)
                    box = advice.json()["best_box"]
                else:
                    box = next(iter(game["options"]))
                client.post(f"/api/v1/games/{game_id}/score", json={"box": box}, headers=headers)
        return game_id


def test_the_review_shows_the_chart_and_the_costliest_mistakes(
    browser: Any, server: Server, artifacts: Path
) -> None:
    game_id = finished_game(server)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server.url}/games/{game_id}")
    page.get_by_role("heading", name="Game over").wait_for()
    page.get_by_role("link", name="Review the game").click()
    page.get_by_role("heading", name="Game review").wait_for()
    chart = page.get_by_role("img", name="Expected final total after each decision, by round")
    assert chart.is_visible()
    assert page.locator("svg polyline.series").count() == 2
    bob = page.locator('section.player-review[data-seat="1"]')
    mistakes = bob.locator("ol.mistakes li")
    assert mistakes.count() == 3
    assert "chose" in mistakes.first.inner_text()
    page.screenshot(path=str(artifacts / "review-desktop.png"), full_page=True)
