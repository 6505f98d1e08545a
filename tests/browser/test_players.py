"""A player without an account, in a real browser on a phone: a public game with two bots,
then *My games*, the profile and the leaderboard, in English and Hebrew, light and dark,
with no serious accessibility finding (issue 28)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.web.deps import seat_cookie
from tests.browser.test_accessibility import check_every_setting, in_english
from tests.browser.test_multiplayer import join
from tests.live_server import Server

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}

BEST = max
WORST = min
"""How a seat chooses its box among the scores offered: with a Penta every roll, the best
choice ends first and the worst last."""


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_player(http: httpx.Client, name: str) -> dict[str, str]:
    made = http.post("/api/v1/players", json={"name": name})
    assert made.status_code == 201, made.text
    return {"X-Player-Token": made.json()["token"]}


def play_out(http: httpx.Client, game_id: str, seats: dict[int, tuple[str, Callable]]) -> None:
    """Each seat (its token and how it chooses) rolls once a turn and scores, to the end."""
    game = http.get(f"/api/v1/games/{game_id}").json()
    while game["status"] == "playing":
        token, choose = seats[game["turn"]]
        rolled = http.post(f"/api/v1/games/{game_id}/roll", json={}, headers=bearer(token))
        assert rolled.status_code == 200, rolled.text
        options = rolled.json()["options"]
        box = choose(options, key=options.get)
        scored = http.post(
            f"/api/v1/games/{game_id}/score", json={"box": box}, headers=bearer(token)
        )
        assert scored.status_code == 200, scored.text
        game = scored.json()
    assert game["status"] == "finished"


def rated_games(http: httpx.Client, bob: dict[str, str], cid: dict[str, str], count: int) -> None:
    """``count`` public games of Bob (who wins) and Cid, through the API."""
    for _ in range(count):
        made = http.post("/api/v1/games", json={"name": "Bob", "public": True}, headers=bob)
        assert made.status_code == 201, made.text
        game_id, host = made.json()["game"]["id"], made.json()["token"]
        joined = http.post(f"/api/v1/games/{game_id}/players", json={"name": "Cid"}, headers=cid)
        assert joined.status_code == 201, joined.text
        assert http.post(f"/api/v1/games/{game_id}/start", headers=bearer(host)).status_code == 200
        play_out(http, game_id, {0: (host, BEST), 1: (joined.json()["token"], WORST)})


def test_my_games_a_profile_and_the_leaderboard_on_a_phone(
    browser: Any, start_server: Callable[..., Server], axe_source: str, artifacts: Path
) -> None:
    server = start_server(PENTA_DICE_SCRIPT="6", PENTA_COMPUTER_PACE_SECONDS="3600")
    http = httpx.Client(base_url=server.url, timeout=30)
    bob, cid = new_player(http, "Bob"), new_player(http, "Cid")
    rated_games(http, bob, cid, 5)

    # Hana hosts a public game from her phone; the two bots join it.
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(server.url)
    page.get_by_label("Your name").fill("Hana")
    page.get_by_label("Open to anyone", exact=False).check()
    page.get_by_role("button", name="Play with friends").click()
    page.get_by_role("heading", name="Waiting for players").wait_for()
    game_id = page.url.rsplit("/", 1)[-1]
    seats = {}
    for number, (player, choose) in enumerate(((bob, WORST), (cid, WORST)), start=1):
        name = "Bob" if player is bob else "Cid"
        joined = http.post(f"/api/v1/games/{game_id}/players", json={"name": name}, headers=player)
        assert joined.status_code == 201, joined.text
        seats[number] = (joined.json()["token"], choose)
    page.get_by_role("button", name="Start the game").click()
    page.get_by_role("button", name="Roll (3 left)").wait_for()
    cookies = {cookie["name"]: cookie["value"] for cookie in page.context.cookies()}
    seats[0] = (cookies[seat_cookie(game_id)], BEST)
    play_out(http, game_id, seats)

    # My games: the finished game, won, with the totals and a provisional rating.
    page.get_by_role("button", name="Menu").click()  # on a phone the site's links are folded
    page.get_by_role("link", name="My games").click()
    page.get_by_role("heading", name="My games").wait_for()
    finished = page.locator(f'.played-games li[data-game="{game_id}"]')
    assert "Won" in finished.inner_text()
    assert page.locator('[data-figure="played"]').inner_text() == "1"
    assert page.locator('[data-figure="wins"]').inner_text() == "1"
    assert int(page.locator("[data-rating]").first.get_attribute("data-rating")) > 1500
    assert "±" in page.locator('[data-figure="rating"]').inner_text()
    page.screenshot(path=str(artifacts / "me-phone.png"), full_page=True)
    found = check_every_setting(page, server, axe_source, "my games")

    # The profile as a stranger would see it: the same public game.
    in_english(page, server)
    page.reload()
    page.get_by_role("link", name="My profile as others see it").click()
    page.get_by_role("heading", name="Hana").wait_for()
    assert page.locator(f'.played-games li[data-game="{game_id}"]').count() == 1
    page.screenshot(path=str(artifacts / "profile-phone.png"), full_page=True)
    found += check_every_setting(page, server, axe_source, "profile")

    # The leaderboard: Bob and Cid have six rated games, Hana one (not listed yet).
    in_english(page, server)
    page.goto(server.url + "/leaderboard")
    rows = page.locator("table.leaderboard tbody tr")
    assert [rows.nth(n).locator("th").inner_text() for n in range(rows.count())] == ["Bob", "Cid"]
    page.screenshot(path=str(artifacts / "leaderboard-phone.png"), full_page=True)
    found += check_every_setting(page, server, axe_source, "leaderboard")
    assert not found, "\n".join(found)


def test_in_a_public_game_each_viewer_may_mute_a_players_reactions(
    browser: Any, start_server: Callable[..., Server]
) -> None:
    server = start_server(PENTA_COMPUTER_PACE_SECONDS="3600")
    ann = browser.new_context(viewport=PHONE).new_page()
    ann.goto(server.url)
    ann.get_by_label("Your name").fill("Ann")
    ann.get_by_label("Open to anyone", exact=False).check()
    ann.get_by_role("button", name="Play with friends").click()
    ann.get_by_role("heading", name="Waiting for players").wait_for()
    link = ann.locator("#share-link").input_value()
    bob = join(browser, link, "Bob")
    ann.locator("#lobby").get_by_text("Bob").wait_for()
    ann.get_by_role("button", name="Start the game").click()
    bob.get_by_text("Ann to move").wait_for()
    watcher = browser.new_context().new_page()
    watcher.goto(link)
    ann.get_by_text("1 watching").wait_for()

    # Bob mutes Ann; the spectator does not. A seat never mutes itself.
    assert ann.locator("[data-mute-seat]").all_inner_texts() == ["Bob"]
    mute = bob.locator("[data-mute-seat='0']")
    assert mute.inner_text() == "Ann"
    mute.click()
    assert mute.get_attribute("aria-pressed") == "true"
    ann.get_by_role("button", name="Applause").click()
    watcher.locator("#reactions [data-reaction=clap]").filter(has_text="Ann").wait_for()
    bob.wait_for_timeout(500)  # the same event reached Bob's stream as well
    assert bob.locator("#reactions [data-reaction]").count() == 0
    # The choice holds after a reload; unmuted, Ann's reactions show again.
    bob.reload()
    mute = bob.locator("[data-mute-seat='0']")
    assert mute.get_attribute("aria-pressed") == "true"
    mute.click()
    assert mute.get_attribute("aria-pressed") == "false"
    ann.get_by_role("button", name="Good game").click()
    bob.locator("#reactions [data-reaction=gg]").filter(has_text="Ann").wait_for()
