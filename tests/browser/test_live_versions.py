"""A fast game, live: three seats and a spectator, each in a browser of its own, see every
version of it in order (holds and rolls back to back, nothing coalesced away), and a page
that missed a version resyncs to the game as it is."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.browser.pages import MOTION, fetched
from tests.live_server import Server
from tests.web.helpers import auth

pytestmark = pytest.mark.browser

# Before the page's own scripts: every game event the page's stream brings, in the order it
# came (a capture listener on window hears it before penta.js on the document), and, where
# the page says so, one change to lose as a lossy connection would.
LISTEN = """
window.heard = [];
window.lost = [];
window.answered = 0;  // requests over, each once the page has done with its answer
const send = XMLHttpRequest.prototype.send;
XMLHttpRequest.prototype.send = function (...args) {
  this.addEventListener("loadend", () => { window.answered += 1; });
  return send.apply(this, args);
};
window.addEventListener("htmx:sseOpen", () => { window.streaming = true; }, true);
window.addEventListener("htmx:sseBeforeMessage", (event) => {
  const type = event.detail.type;
  if (type !== "update" && type !== "change") return;
  const version = parseInt(event.detail.lastEventId, 10);
  if (type === "change" && version === window.loseVersion) {
    window.lost.push(version);
    event.preventDefault();
    event.stopImmediatePropagation();
    return;
  }
  window.heard.push(version);
}, true);
"""


def open_page(browser: Any, server: Server, game_id: str, token: str | None) -> Any:
    """The game's page in a browser of its own, holding ``token``'s seat (None: watching)."""
    context = browser.new_context(reduced_motion=MOTION)  # versions land during tumbles too
    if token is not None:
        context.add_cookies(
            [{"name": f"penta_seat_{game_id}", "value": token, "url": f"{server.url}/games/"}]
        )
    context.add_init_script(LISTEN)
    page = context.new_page()
    page.goto(f"{server.url}/games/{game_id}")
    page.wait_for_function("() => window.streaming === true")
    return page


def play_fast(api: httpx.Client, game_id: str, tokens: list[str], turns: int) -> int:
    """``turns`` turns as fast as the server answers: a roll, two rolls that hold, a box. The
    version of the last."""
    version = 0
    for turn in range(turns):
        token = auth(tokens[turn % len(tokens)])
        for hold in (None, [0, 1], [0, 1, 2]):
            body = {"hold": [] if hold is None else hold}
            answer = api.post(f"/api/v1/games/{game_id}/roll", json=body, headers=token)
            assert answer.status_code == 200, answer.text
        box = next(iter(answer.json()["options"]))
        answer = api.post(f"/api/v1/games/{game_id}/score", json={"box": box}, headers=token)
        assert answer.status_code == 200, answer.text
        version = answer.json()["version"]
    return version


def start_alone(api: httpx.Client) -> tuple[str, str, int]:
    """A game of Ann alone, started: its id, Ann's token and the version it started at."""
    created = api.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id, token = created["game"]["id"], created["token"]
    started = api.post(f"/api/v1/games/{game_id}/start", headers=auth(token)).json()
    return game_id, token, int(started["version"])


def hold_answers(page: Any, pattern: str) -> list[tuple[Any, Any]]:
    """The answers to the page's requests for ``pattern``, each fetched from the server as
    it is asked (an action is applied) and kept from the page, with its route to fulfil."""
    answers: list[tuple[Any, Any]] = []
    page.route(pattern, lambda route: answers.append((route, route.fetch())))
    return answers


def shown(page: Any) -> dict[str, Any]:
    """What a page shows of the game: its version, the dice, each seat's total."""
    return dict(
        page.evaluate(
            """() => ({
      version: parseInt(document.getElementById("dice-tray").dataset.version, 10),
      dice: [...document.querySelectorAll("#dice-tray [data-value]")].map(d => d.dataset.value),
      totals: [...document.querySelectorAll("#scoresheet tr.total td")].map(td => td.innerText),
    })"""
        )
    )


def sheet(page: Any) -> list[Any]:
    """The scoresheet as a person sees it, row by row: its classes, its text (what is hidden
    is not in it) and the boxes one may choose."""
    return list(
        page.evaluate(
            """() => [...document.querySelectorAll("#scoresheet tr")].map(tr => [
      tr.id,
      [...tr.classList].filter(name => !name.startsWith("htmx-")).join(" "),
      tr.innerText,
      [...tr.querySelectorAll("input[name=box]")].filter(input => input.offsetParent).length,
    ])"""
        )
    )


def test_three_seats_and_a_spectator_see_every_version_in_order_and_a_gap_resyncs(
    browser: Any, server: Server
) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as api:
        created = api.post("/api/v1/games", json={"name": "Ann"}).json()
        game_id, tokens = created["game"]["id"], [created["token"]]
        for name in ("Bob", "Cy", "Di"):
            joined = api.post(f"/api/v1/games/{game_id}/players", json={"name": name})
            tokens.append(joined.json()["token"])
        started = api.post(f"/api/v1/games/{game_id}/start", headers=auth(tokens[0])).json()
        first = started["version"]
        readers = [open_page(browser, server, game_id, token) for token in tokens[:3]]
        readers.append(open_page(browser, server, game_id, None))
        lossy = open_page(browser, server, game_id, None)
        lossy.evaluate(f"() => {{ window.loseVersion = {first + 6}; }}")
        resyncs: list[str] = []
        lossy.on(
            "request",
            lambda request: resyncs.append(request.url) if "/board" in request.url else None,
        )

        play_fast(api, game_id, tokens, turns=8)  # 32 versions
        # And Ann's first roll of her ninth turn: her boxes are offered.
        rolled = api.post(
            f"/api/v1/games/{game_id}/roll", json={"hold": []}, headers=auth(tokens[0])
        )
        last = rolled.json()["version"]
        game = api.get(f"/api/v1/games/{game_id}").json()
    totals = [str(player["total"]) for player in game["players"]]
    for page in [*readers, lossy]:
        page.wait_for_function(
            "last => parseInt(document.getElementById('dice-tray').dataset.version, 10) >= last",
            arg=last,
        )
        assert shown(page)["totals"] == totals
    for page in readers:
        assert page.evaluate("() => window.heard") == list(range(first + 1, last + 1))
        assert page.evaluate("() => window.lost") == []
    # The lossy page lost a change; the next one found the gap and the board was fetched.
    assert lossy.evaluate("() => window.lost") == [first + 6]
    assert first + 6 not in lossy.evaluate("() => window.heard")
    assert any(f"/games/{game_id}/board" in url for url in resyncs)
    assert shown(lossy) == shown(readers[-1])
    # The sheet's rows were swapped in one by one as they changed: each page shows what the
    # page loaded afresh shows its seat (the mover the boxes to choose, the others the offers).
    for page, token in zip(readers, [*tokens[:3], None], strict=True):
        fresh = open_page(browser, server, game_id, token)
        rows = sheet(page)
        assert rows == sheet(fresh)
        assert sum(row[3] for row in rows) == (len(game["options"]) if token == tokens[0] else 0)


def test_a_resync_answered_after_newer_versions_leaves_the_page_at_the_newest(
    browser: Any, server: Server
) -> None:
    """A board fetched to resync that comes back after the stream has brought newer versions
    is not swapped in, in part or whole: it would take the page back, and no later change
    would mend it (in CI a page that had resynced kept the totals of a version long gone
    under the newest tray: the answer went in place of a tray no longer in the page, and
    only its out-of-band parts were swapped in)."""
    with httpx.Client(base_url=server.url, timeout=10) as api:
        game_id, token, version = start_alone(api)
        page = open_page(browser, server, game_id, None)
        answers = hold_answers(page, f"**/games/{game_id}/board")
        page.evaluate("() => { window.Penta.resync().then(() => { window.resynced = true; }); }")
        fetched(page, answers)
        for hold in ([], [0]):
            answer = api.post(
                f"/api/v1/games/{game_id}/roll", json={"hold": hold}, headers=auth(token)
            )
            assert answer.status_code == 200, answer.text
        game = answer.json()
    newest = version + 2
    assert game["version"] == newest
    page.wait_for_function("v => window.heard.includes(v)", arg=newest)
    assert shown(page)["version"] == newest
    (route, board), *others = answers
    assert others == []
    route.fulfill(response=board)
    page.wait_for_function("() => window.resynced === true")
    page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-settling')")
    assert shown(page) == {
        "version": newest,
        "dice": [str(value) for value in game["dice"]],
        "totals": ["0"],
    }
    # Nothing of the board read before (its sheet offered no box) went in out of band either.
    assert sheet(page) == sheet(open_page(browser, server, game_id, None))


def test_an_answer_that_lands_after_a_newer_version_takes_nothing_back(
    browser: Any, server: Server
) -> None:
    """A roll's answer held up until the stream has brought the roll and the score after it
    (another tab of the seat scored) changes nothing: not the tray, which the stream swapped
    in anew, nor the sheet (htmx would swap the answer into the tray it was sent from, now
    out of the page, and its out-of-band sheet of the roll over the scored one)."""
    with httpx.Client(base_url=server.url, timeout=10) as api:
        game_id, token, version = start_alone(api)
        page = open_page(browser, server, game_id, token)
        answers = hold_answers(page, f"**/games/{game_id}/roll")
        page.locator("#dice-tray button.roll").click()
        rolled = version + 1
        page.wait_for_function("v => window.heard.includes(v)", arg=rolled)
        box = next(iter(api.get(f"/api/v1/games/{game_id}").json()["options"]))
        scored = api.post(f"/api/v1/games/{game_id}/score", json={"box": box}, headers=auth(token))
        assert scored.status_code == 200, scored.text
    page.wait_for_function("v => window.heard.includes(v)", arg=rolled + 1)
    page.wait_for_function("() => !document.querySelector('.htmx-settling')")
    before: dict[str, Any] = {"shown": shown(page), "sheet": sheet(page)}
    assert before["shown"]["version"] == rolled + 1
    (route, answer), *others = fetched(page, answers)
    assert others == []
    answered = page.evaluate("() => window.answered")
    route.fulfill(response=answer)
    page.wait_for_function("n => window.answered > n", arg=answered)
    page.wait_for_function("() => !document.querySelector('.htmx-settling')")
    assert {"shown": shown(page), "sheet": sheet(page)} == before
    assert before["sheet"] == sheet(open_page(browser, server, game_id, token))


def test_hints_turned_on_after_a_roll_shown_by_its_echo_still_let_the_stream_in(
    browser: Any, server: Server
) -> None:
    """With hints on, the stream's versions wait while an action of the page's is under way.
    A roll whose echo swapped in a new tray (its Roll button with it) is over all the same
    when its answer lands: what the page plays afterwards, hints on, comes in live (htmx says
    a request is over on the element that sent it, by then out of the page)."""
    with httpx.Client(base_url=server.url, timeout=10) as api:
        game_id, token, version = start_alone(api)
        page = open_page(browser, server, game_id, token)
        answers = hold_answers(page, f"**/games/{game_id}/roll")
        page.locator("#dice-tray button.roll").click()
        page.wait_for_function("v => window.heard.includes(v)", arg=version + 1)
        (route, answer), *others = fetched(page, answers)
        assert others == []
        answered = page.evaluate("() => window.answered")
        route.fulfill(response=answer)
        page.wait_for_function("n => window.answered > n", arg=answered)
        page.locator('#hints .hints-toggle button[aria-pressed="false"]').click()
        page.locator('#hints .hints-toggle button[aria-pressed="true"]').wait_for()
        page.wait_for_function("n => window.answered > n + 1", arg=answered)
        rolled = api.post(f"/api/v1/games/{game_id}/roll", json={"hold": [0]}, headers=auth(token))
        assert rolled.status_code == 200, rolled.text
    page.wait_for_function("v => window.heard.includes(v)", arg=rolled.json()["version"])
    page.wait_for_function(
        "v => document.getElementById('dice-tray').dataset.version === String(v)",
        arg=rolled.json()["version"],
    )


def test_a_hold_answered_after_its_echo_leaves_one_tray(browser: Any, server: Server) -> None:
    """The stream's change of a hold swaps in that die alone, its form with it: the hold's
    answer, coming after, still replaces the tray (not nested inside it, which a form that
    inherits its swap from the tray would do once it is no longer in the page)."""
    with httpx.Client(base_url=server.url, timeout=10) as api:
        game_id, token, version = start_alone(api)
    page = open_page(browser, server, game_id, token)
    page.locator("#dice-tray button.roll").click()  # the stream renders its change too
    rolled = version + 1
    page.wait_for_function("v => window.heard.includes(v)", arg=rolled)
    page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-settling')")
    answers = hold_answers(page, f"**/games/{game_id}/dice/*")
    tray = page.evaluate_handle("() => document.getElementById('dice-tray')")
    page.locator("#die-0 button.die").click()
    page.wait_for_function("v => window.heard.includes(v)", arg=rolled + 1)
    page.locator("#die-0 button.die.held").wait_for()
    # The echo was a change of that die alone: the tray the hold was sent from is in place.
    assert page.evaluate("tray => tray === document.getElementById('dice-tray')", tray)
    (route, answer), *others = fetched(page, answers)
    assert others == []
    route.fulfill(response=answer)
    # Swapped in: in the tray's place, or (the fault) inside it.
    page.wait_for_function(
        "tray => !tray.isConnected || document.querySelectorAll('#dice-tray').length > 1",
        arg=tray,
    )
    page.wait_for_function("() => !document.querySelector('.htmx-settling')")
    assert not page.evaluate("tray => tray.isConnected", tray), "the answer went inside the tray"
    trays = page.evaluate(
        """() => [...document.querySelectorAll("#dice-tray")].map(
            tray => [tray.parentElement.className, tray.dataset.version])"""
    )
    assert trays == [["play-area", str(rolled + 1)]]


def test_a_box_selected_before_a_roll_is_not_selected_after_it(
    browser: Any, server: Server
) -> None:
    """A roll's change swaps in only the rows whose offer changed: a box selected for the roll
    before, whose row is the same on the new roll (Penta offers 0 on both, nearly always), is
    no longer selected once the roll is shown, and stays so when the roll's answer comes."""
    with httpx.Client(base_url=server.url, timeout=10) as api:
        game_id, token, version = start_alone(api)
    page = open_page(browser, server, game_id, token)
    page.locator("#dice-tray button.roll").click()
    rolled = version + 1
    page.wait_for_function("v => window.heard.includes(v)", arg=rolled)
    page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-settling')")
    page.locator('#sheet-penta input[name="box"]').check()
    answers = hold_answers(page, f"**/games/{game_id}/roll")
    page.locator("#dice-tray button.roll").click()
    page.wait_for_function("v => window.heard.includes(v)", arg=rolled + 1)
    page.wait_for_function(
        f"() => document.getElementById('dice-tray').dataset.version === '{rolled + 1}'"
    )
    checked = "() => document.querySelectorAll('#scoresheet input[name=box]:checked').length"
    assert page.evaluate(checked) == 0, "the echo of the roll left the box selected"
    (route, answer), *others = fetched(page, answers)
    assert others == []
    route.fulfill(response=answer)
    page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-settling')")
    assert page.evaluate(checked) == 0, "the roll's answer selected the box again"
