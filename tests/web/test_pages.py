"""The HTML pages and htmx fragments: ids, out-of-band swaps, errors, escaping, CSRF."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
from fastapi.testclient import TestClient
from starlette.routing import Route

from app import __version__
from app.web.plumbing.middleware import CSRF_COOKIE
from app.web.routes.events import PageEvents
from tests.scenarios import BOXES_BEFORE_SACRIFICE, SACRIFICE_DICE

HTMX = {"HX-Request": "true"}


def csrf(client: TestClient) -> str:
    """The CSRF token the pages embed for this client's browser cookie."""
    page = client.get("/")
    match = re.search(r'name="csrf_token" value="([0-9a-f]{64})"', page.text)
    assert match, "the home page carries a CSRF token"
    return match.group(1)


def new_solo_game(client: TestClient, name: str = "Ann") -> str:
    token = csrf(client)
    response = client.post(
        "/games", data={"name": name, "mode": "solo", "csrf_token": token}, follow_redirects=False
    )
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert location.startswith("/games/")
    return location.removeprefix("/games/")


def post(client: TestClient, path: str, **fields: object) -> httpx.Response:
    token = csrf(client)
    return client.post(
        path, data={k: str(v) for k, v in fields.items()}, headers={**HTMX, "X-CSRF-Token": token}
    )


def test_home_page_has_security_headers_and_a_csrf_cookie(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "same-origin"
    assert response.headers["x-frame-options"] == "DENY"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{CSRF_COOKIE}=")
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    assert '<html lang="en" dir="ltr">' in response.text
    assert "<script>" not in response.text


def test_forms_without_the_csrf_token_are_refused(client: TestClient) -> None:
    client.get("/")
    refused = client.post("/games", data={"name": "Ann"}, follow_redirects=False)
    assert refused.status_code == 403
    forged = client.post(
        "/games", data={"name": "Ann", "csrf_token": "0" * 64}, follow_redirects=False
    )
    assert forged.status_code == 403
    cross_site = client.post(
        "/games",
        data={"name": "Ann", "csrf_token": csrf(client)},
        headers={"Sec-Fetch-Site": "cross-site"},
        follow_redirects=False,
    )
    assert cross_site.status_code == 403


def test_new_game_sets_an_httponly_seat_cookie_for_that_game(client: TestClient) -> None:
    token = csrf(client)
    response = client.post(
        "/games", data={"name": "Ann", "mode": "solo", "csrf_token": token}, follow_redirects=False
    )
    game_id = response.headers["location"].removeprefix("/games/")
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"penta_seat_{game_id}=")
    assert f"Path=/games/{game_id}" in cookie
    assert "HttpOnly" in cookie
    assert "SameSite=lax" in cookie.replace("SameSite=Lax", "SameSite=lax")


def test_game_page_includes_the_three_fragments(client: TestClient) -> None:
    game_id = new_solo_game(client)
    page = client.get(f"/games/{game_id}")
    assert page.status_code == 200
    for fragment in ('id="dice-tray"', 'id="scoresheet"', 'id="sacrifice-warning"'):
        assert fragment in page.text
    assert 'data-key="r"' in page.text
    assert "Roll (3 left)" in page.text
    assert 'aria-label="die 1: not rolled"' in page.text
    assert "Confirm turn" not in page.text


def test_roll_returns_the_tray_and_out_of_band_siblings(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(dice_script="2,2,3,3,3")
    game_id = new_solo_game(client)
    response = post(client, f"/games/{game_id}/roll", turn=0, roll=0)
    assert response.status_code == 200
    html = response.text
    assert html.lstrip().startswith('<div id="dice-tray"')
    for fragment in ("scoresheet", "sacrifice-warning", "status", "flash"):
        assert re.search(rf'id="{fragment}"[^>]*hx-swap-oob="true"', html), fragment
    assert 'aria-label="die 1: two"' in html
    assert "Roll (2 left)" in html
    assert 'value="full_house"' in html
    assert "Confirm turn" in html


def test_hold_score_and_reload_keep_the_state(make_client: Callable[..., TestClient]) -> None:
    client = make_client(dice_script="2,2,3,3,3")
    game_id = new_solo_game(client)
    post(client, f"/games/{game_id}/roll", turn=0, roll=0)
    held = post(client, f"/games/{game_id}/dice/2", held="true", turn=0, roll=1)
    assert 'aria-label="die 3: three, held"' in held.text
    reloaded = client.get(f"/games/{game_id}")
    assert 'aria-label="die 3: three, held"' in reloaded.text
    assert 'aria-pressed="true"' in reloaded.text
    scored = post(client, f"/games/{game_id}/score", box="full_house", turn=0, roll=1)
    assert scored.status_code == 200
    assert '<td class="used fresh">25</td>' in scored.text  # just recorded: highlighted
    assert "Round 2 of 13" in scored.text


def test_a_stale_click_is_409_with_a_resync(make_client: Callable[..., TestClient]) -> None:
    client = make_client(dice_script="2,2,3,3,3")
    game_id = new_solo_game(client)
    post(client, f"/games/{game_id}/roll", turn=0, roll=0)
    double = post(client, f"/games/{game_id}/roll", turn=0, roll=0)
    assert double.status_code == 409
    html = double.text
    assert 'data-error-code="stale"' in html
    assert "Roll (2 left)" in html


def test_the_sacrifice_warning_appears_when_nothing_scores(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(dice_script=SACRIFICE_DICE)
    game_id = new_solo_game(client)
    boxes = BOXES_BEFORE_SACRIFICE
    for turn, box in enumerate(boxes):
        rolled = post(client, f"/games/{game_id}/roll", turn=turn, roll=0)
        assert "must be sacrificed" not in rolled.text
        post(client, f"/games/{game_id}/score", box=box, turn=turn, roll=1)
    forced = post(client, f"/games/{game_id}/roll", turn=11, roll=0)
    assert "No open box scores: one must be sacrificed" in forced.text
    page = client.get(f"/games/{game_id}")
    assert "No open box scores: one must be sacrificed" in page.text


def test_auto_confirm_countdown_after_the_third_roll(client: TestClient) -> None:
    game_id = new_solo_game(client)
    for roll in range(3):
        response = post(client, f"/games/{game_id}/roll", turn=0, roll=roll)
    html = response.text
    assert 'data-countdown="3.0"' in html
    assert 'hx-trigger="penta:auto"' in html
    done = post(client, f"/games/{game_id}/auto", turn=0, roll=3)
    assert done.status_code == 200
    assert done.text.count('<td class="used fresh">') == 1
    assert "Time's up: the computer scored" in done.text  # what happened, in words


def test_player_names_are_escaped(client: TestClient) -> None:
    game_id = new_solo_game(client, name="<script>alert(1)</script>")
    page = client.get(f"/games/{game_id}")
    assert "<script>alert(1)</script>" not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text


def test_plain_forms_work_without_htmx(client: TestClient) -> None:
    game_id = new_solo_game(client)
    token = csrf(client)
    response = client.post(
        f"/games/{game_id}/roll",
        data={"csrf_token": token, "turn": "0", "roll": "0"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == f"/games/{game_id}"
    assert "Roll (2 left)" in client.get(f"/games/{game_id}").text


def test_unknown_game_page_is_404(client: TestClient) -> None:
    response = client.get("/games/nope", headers={"Accept": "text/html"})
    assert response.status_code == 404
    assert "there is no such game" in response.text


def test_the_page_stream_answers_an_unknown_game_and_a_bad_query_as_any_route(
    client: TestClient,
) -> None:
    """The page's stream is a plain ASGI endpoint, not a FastAPI route (a stream holds its
    request's stack open: docs/performance.md); it still answers as the routes do."""
    missing = client.get("/games/nope/events")
    assert missing.status_code == 404
    assert "there is no such game" in missing.text
    game_id = new_solo_game(client)
    for query, field in (("version=abc", "version"), ("page=review", "page"), ("page=", "page")):
        refused = client.get(f"/games/{game_id}/events?{query}")
        assert refused.status_code == 422, query
        assert field in refused.text
    assert client.post(f"/games/{game_id}/events").status_code == 405
    assert client.head(f"/games/{game_id}/events").status_code == 405  # a stream never ends
    # The app's own route, not in an included router: their matching kept more on a stream.
    route = client.app.router.routes[0]  # type: ignore[attr-defined]
    assert isinstance(route, Route)
    assert route.path == "/games/{game_id}/events"
    assert isinstance(route.app, PageEvents)


def test_someone_elses_game_shows_no_controls(client: TestClient) -> None:
    game_id = new_solo_game(client)
    other = TestClient(client.app)
    page = other.get(f"/games/{game_id}")
    assert page.status_code == 200
    assert 'data-key="r"' not in page.text
    refused = post(other, f"/games/{game_id}/roll", turn=0, roll=0)
    assert refused.status_code == 403
    assert 'data-error-code="not_your_seat"' in refused.text


def test_healthz(client: TestClient) -> None:
    health = client.get("/healthz").json()
    assert health == {
        "status": "ok",
        "version": __version__,
        "live_streams": 0,
        "bus": "local",
        "wal_bytes": health["wal_bytes"],
        "strategy_ready": True,
    }
    assert 0 <= health["wal_bytes"] < 4 * 1024 * 1024


def test_the_version_is_in_the_footer_of_every_page_and_in_the_api(client: TestClient) -> None:
    for path in ("/", "/rules", "/stats"):
        footer = client.get(path).text.split('<footer class="site-footer">')[1]
        assert f'<span class="version">Penta {__version__}</span>' in footer
    assert client.get("/api/v1/version").json() == {"version": __version__}
    assert client.get("/openapi.json").json()["info"]["version"] == __version__
