"""Verifiable dice in a real browser: the page shows the commitment, the browser makes the
seeds it sends with the join and the start, and at the end "Check the dice" recomputes every
roll with WebCrypto, agreeing with the server, and names the roll of a tampered log."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest

from tests.browser.test_multiplayer import host_game
from tests.fairness.play import play_to_the_end
from tests.live_server import Server

pytestmark = pytest.mark.browser


def seat_token(page: Any, game_id: str) -> str:
    """The seat's secret, from the browser's (HttpOnly) cookie."""
    cookies = page.context.cookies()
    return str(next(c["value"] for c in cookies if c["name"] == f"penta_seat_{game_id}"))


def sent_seed(request: Any) -> str:
    return parse_qs(request.post_data)["client_seed"][0]


def test_the_browser_seeds_the_dice_and_checks_every_roll(
    browser: Any, server: Server, artifacts: Path
) -> None:
    ann, link = host_game(browser, server)
    game_id = link.rsplit("/", 1)[1]
    api = httpx.Client(base_url=server.url, timeout=30)
    commitment = api.get(f"/api/v1/games/{game_id}").json()["fairness"]["commitment"]
    fairness = ann.locator("#fairness")
    fairness.get_by_text(f"{commitment[:12]}…").wait_for()
    fairness.get_by_text("Show in full").click()
    fairness.get_by_text(commitment, exact=True).wait_for()

    bob = browser.new_context().new_page()
    bob.goto(link)
    bob.get_by_label("Your name").fill("Bob")
    with bob.expect_request(re.compile(r"/join$")) as joined:
        bob.get_by_role("button", name="Join the game").click()
    bob.get_by_text("Waiting for the host to start the game").wait_for()
    with ann.expect_request(re.compile(r"/start$")) as started:
        ann.get_by_role("button", name="Start the game").click()
    ann.get_by_text("Round 1 of 13").wait_for()
    seeds = api.get(f"/api/v1/games/{game_id}").json()["fairness"]["client_seeds"]
    assert [seat["client_seed"] for seat in seeds] == [
        sent_seed(started.value),
        sent_seed(joined.value),
    ]
    assert all(re.fullmatch(r"[0-9a-f]{32}", seat["client_seed"]) for seat in seeds)
    assert seeds[0]["client_seed"] != seeds[1]["client_seed"]

    tokens = {0: seat_token(ann, game_id), 1: seat_token(bob, game_id)}
    play_to_the_end(api, game_id, tokens)
    log = api.get(f"/api/v1/games/{game_id}/log").json()
    ann.get_by_role("heading", name="Game over").wait_for()
    ann.get_by_role("button", name="Check the dice").click()
    ann.get_by_text(f"All {len(log['rolls'])} rolls match.").wait_for()
    ann.get_by_text("Show in full").click()
    ann.locator("#fairness").screenshot(path=str(artifacts / "fairness-checked.png"))

    tampered = copy.deepcopy(log)
    roll = tampered["rolls"][7]
    index = roll["held"].index(False)
    expected = " ".join(map(str, roll["dice"]))
    roll["dice"][index] = roll["dice"][index] % 6 + 1
    spectator = browser.new_context().new_page()
    spectator.route(
        f"**/api/v1/games/{game_id}/log",
        lambda route: route.fulfill(content_type="application/json", body=json.dumps(tampered)),
    )
    spectator.goto(link)
    spectator.get_by_role("button", name="Check the dice").click()
    logged = " ".join(map(str, roll["dice"]))
    spectator.get_by_text(
        f"Roll 7 does not match: the log says {logged}, the seeds give {expected}."
    ).wait_for()

    wrong_seed = copy.deepcopy(log)
    wrong_seed["fairness"]["server_seed"] = "00" * 32
    doubter = browser.new_context().new_page()
    doubter.route(
        f"**/api/v1/games/{game_id}/log",
        lambda route: route.fulfill(content_type="application/json", body=json.dumps(wrong_seed)),
    )
    doubter.goto(link)
    doubter.get_by_role("button", name="Check the dice").click()
    doubter.get_by_text(re.compile(r"^The server seed does not match the commitment\. ")).wait_for()

    # Each browser kept the commitment it was shown before the first roll and its own seed.
    def kept(page: Any) -> Any:
        return page.evaluate(f"JSON.parse(localStorage.getItem('penta:fairness:{game_id}'))")

    assert kept(ann) == {"commitment": commitment, "seed": seeds[0]["client_seed"]}
    assert kept(bob) == {"commitment": commitment, "seed": seeds[1]["client_seed"]}
    # A server that swapped its seed and published the new one's commitment at the end: a
    # stranger's browser cannot tell, Ann's can.
    swapped = copy.deepcopy(log)
    other = bytes(range(32))
    swapped["fairness"].update(
        server_seed=other.hex(), commitment=hashlib.sha256(other).hexdigest()
    )
    ann.route(
        f"**/api/v1/games/{game_id}/log",
        lambda route: route.fulfill(content_type="application/json", body=json.dumps(swapped)),
    )
    ann.get_by_role("button", name="Check the dice").click()
    ann.get_by_text(
        re.compile(r"^The commitment is not the one this browser was shown before the first roll")
    ).wait_for()
    # A log that gives Bob another seed than the one his browser gave.
    reseeded = copy.deepcopy(log)
    reseeded["fairness"]["client_seeds"][1]["client_seed"] = "f" * 32
    bob.route(
        f"**/api/v1/games/{game_id}/log",
        lambda route: route.fulfill(content_type="application/json", body=json.dumps(reseeded)),
    )
    bob.reload()
    bob.get_by_role("button", name="Check the dice").click()
    bob.get_by_text(
        re.compile(r"^Your seed in the log is not the one this browser gave")
    ).wait_for()
    # A log cut short cannot be checked at all.
    cut = copy.deepcopy(log)
    cut["rolls"] = cut["rolls"][:5]
    spectator.unroute(f"**/api/v1/games/{game_id}/log")
    spectator.route(
        f"**/api/v1/games/{game_id}/log",
        lambda route: route.fulfill(content_type="application/json", body=json.dumps(cut)),
    )
    spectator.reload()
    spectator.get_by_role("button", name="Check the dice").click()
    spectator.get_by_text(
        "This log is not a whole, well-formed game: its dice cannot be checked."
    ).wait_for()
    api.close()
