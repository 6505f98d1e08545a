"""Attacks: cross-site posts, framing and sniffing, cookie theft, secrets seen by other seats
or written to the logs."""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from app.web.assets import ASSETS
from app.web.plumbing.logs import REDACTED, RedactSecrets, redact
from tests.hardening.conftest import HTMX, csrf_token
from tests.live.test_live_updates import events
from tests.live_server import Server


def _routes(routes: list[Any]) -> Iterator[APIRoute]:
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        elif hasattr(route, "original_router"):  # how FastAPI keeps an included router
            yield from _routes(route.original_router.routes)


def _page_posts(client: TestClient) -> list[str]:
    """Every form route of the pages (the API holds seats by bearer token, not cookie)."""
    return sorted(
        route.path
        for route in _routes(client.app.routes)  # type: ignore[attr-defined]
        if "POST" in route.methods and not route.path.startswith("/api/")
    )


def _solo_game(client: TestClient, name: str = "Ann") -> str:
    created = client.post(
        "/games",
        data={"name": name, "mode": "solo", "csrf_token": csrf_token(client)},  # type: ignore[arg-type]
        follow_redirects=False,
    )
    assert created.status_code == 303
    return str(created.headers["location"]).removeprefix("/games/")


def test_every_form_refuses_a_post_without_this_browsers_token(client: TestClient) -> None:
    game_id = _solo_game(client)
    other = TestClient(client.app)
    stolen = csrf_token(other)  # type: ignore[arg-type]  # valid, but for another browser
    paths = _page_posts(client)
    assert {"/games", "/games/{game_id}/roll", "/games/{game_id}/join", "/language"} <= set(paths)
    for template in paths:
        path = template.replace("{game_id}", game_id).replace("{die}", "0")
        fields = {"name": "Eve", "box": "chance", "held": "true", "language": "fr"}
        for refused in (
            client.post(path, data=fields, headers=HTMX),
            client.post(path, data={**fields, "csrf_token": "0" * 64}),
            client.post(path, data=fields, headers={**HTMX, "X-CSRF-Token": stolen}),
            client.post(
                path,
                data={**fields, "csrf_token": csrf_token(client)},  # type: ignore[arg-type]
                headers={"Sec-Fetch-Site": "cross-site"},
            ),
        ):
            assert refused.status_code == 403, (template, refused.status_code)
            assert 'data-error-code="csrf"' in refused.text or '"csrf"' in refused.text
    rolled = client.post(
        f"/games/{game_id}/roll",
        data={"turn": "0", "roll": "0"},
        headers={**HTMX, "X-CSRF-Token": csrf_token(client)},  # type: ignore[arg-type]
    )
    assert rolled.status_code == 200, "htmx sends the token as a header: that works"


def test_security_headers_on_every_kind_of_answer(client: TestClient) -> None:
    game_id = _solo_game(client)
    answers = {
        "page": client.get(f"/games/{game_id}"),
        "fragment": client.get(f"/games/{game_id}/board", headers=HTMX),
        "api": client.get(f"/api/v1/games/{game_id}"),
        "error": client.get("/games/nope", headers={"Accept": "text/html"}),
        "api error": client.get("/api/v1/games/nope"),
        "static": client.get(ASSETS.url("js/penta.js")),
        "docs": client.get("/docs"),
    }
    for kind, answer in answers.items():
        policy = answer.headers["content-security-policy"]
        assert "unsafe-inline" not in policy, kind
        assert "unsafe-eval" not in policy, kind
        assert "default-src 'self'" in policy, kind
        assert "script-src 'self'" in policy, kind
        assert "frame-ancestors 'none'" in policy, kind
        assert answer.headers["x-frame-options"] == "DENY", kind
        assert answer.headers["x-content-type-options"] == "nosniff", kind
        assert answer.headers["referrer-policy"] == "same-origin", kind
        # A seat's page (its private link) and the API's answers stay in no cache; the
        # static files are kept for good under their hashed names (issue 27, item 4; #25).
        expected = "public, max-age=31536000, immutable" if kind == "static" else "no-store"
        assert answer.headers.get("cache-control") == expected, kind
    page = answers["page"].text
    assert re.findall(r"<script(?![^>]*\bsrc=)", page) == [], "no inline script"
    assert not re.search(r"\son[a-z]+=", page), "no inline event handler"
    assert " style=" not in page, "no inline style"


def _cookie_flags(header: str) -> set[str]:
    return {part.strip().split("=")[0].lower() for part in header.split(";")[1:]}


def test_cookies_are_httponly_lax_and_secure_over_https(
    make_client: Callable[..., TestClient],
) -> None:
    for base_url, secure in (("http://testserver", False), ("https://testserver", True)):
        client = make_client()
        client.base_url = httpx.URL(base_url)
        client.cookies.clear()
        game_id = _solo_game(client)
        language = client.post(
            "/language",
            data={"language": "fr", "next": "/", "csrf_token": csrf_token(client)},  # type: ignore[arg-type]
            follow_redirects=False,
        )
        fresh = TestClient(client.app, base_url=base_url).get("/")
        created = client.post(
            "/games",
            data={"name": "Bo", "mode": "solo", "csrf_token": csrf_token(client)},  # type: ignore[arg-type]
            follow_redirects=False,
        )
        cookies = [fresh.headers["set-cookie"], language.headers["set-cookie"]]
        cookies += created.headers.get_list("set-cookie")
        assert any(cookie.startswith("penta_seat_") for cookie in cookies)
        for cookie in cookies:
            flags = _cookie_flags(cookie)
            assert {"httponly", "samesite"} <= flags, cookie
            assert "samesite=lax" in cookie.lower().replace(" ", ""), cookie
            assert ("secure" in flags) is secure, cookie
        assert game_id
    forced = make_client(secure_cookies=True).get("/")
    assert "secure" in _cookie_flags(forced.headers["set-cookie"])


def test_other_seats_never_see_a_seats_secret_or_its_hash(
    make_client: Callable[..., TestClient],
) -> None:
    host = make_client(rate_limit_per_minute=0)
    guest, spectator = TestClient(host.app), TestClient(host.app)
    created = host.post(
        "/games",
        data={"name": "Ann", "mode": "friends", "csrf_token": csrf_token(host)},  # type: ignore[arg-type]
        follow_redirects=False,
    )
    game_id = created.headers["location"].removeprefix("/games/")
    guest.post(
        f"/games/{game_id}/join",
        data={"name": "Bob", "csrf_token": csrf_token(guest)},  # type: ignore[arg-type]
    )
    secret = host.cookies.get(f"penta_seat_{game_id}")
    guest_secret = guest.cookies.get(f"penta_seat_{game_id}")
    assert secret
    assert guest_secret
    hashed = hashlib.sha256(secret.encode()).hexdigest()
    host.post(
        f"/games/{game_id}/start",
        data={"csrf_token": csrf_token(host)},  # type: ignore[arg-type]
    )
    own_page = host.get(f"/games/{game_id}").text
    own_link = re.search(rf"/games/{game_id}/resume/(\w+)", own_page)
    assert own_link, "the owner sees its resume link"
    guest_page = guest.get(f"/games/{game_id}").text
    guest_link = re.search(rf"/games/{game_id}/resume/(\w+)", guest_page)
    assert guest_link
    seen = [
        guest_page,
        guest.get(f"/games/{game_id}/board", headers=HTMX).text,
        spectator.get(f"/games/{game_id}").text,
        spectator.get(f"/api/v1/games/{game_id}").text,
        own_page,
    ]
    for text in seen:
        # Not even its own page prints the seat's secret: the link has a token of its own.
        assert secret not in text
        assert guest_secret not in text
        assert hashed not in text
    assert own_link.group(1) not in guest_page, "each seat sees its own link only"
    assert own_link.group(1) != guest_link.group(1)
    assert "/resume/" not in seen[2]
    assert all(
        host.get(path).headers["cache-control"] == "no-store"
        for path in (f"/games/{game_id}", f"/games/{game_id}/resume/{own_link.group(1)}")
    ), "a page with a seat's link is never cached"


def test_live_events_carry_no_secret(start_server: Callable[..., Server]) -> None:
    server = start_server()
    with httpx.Client(base_url=server.url, timeout=10) as client:
        created = client.post("/api/v1/games", json={"name": "Ann"}).json()
        game_id, token = created["game"]["id"], created["token"]
        hashed = hashlib.sha256(token.encode()).hexdigest()
        with client.stream("GET", f"/games/{game_id}/events?page=lobby") as stream:
            received = events(stream.iter_lines())
            next(received)
            client.post(
                f"/api/v1/games/{game_id}/start", headers={"Authorization": f"Bearer {token}"}
            )
            for event in (next(received),):
                assert token not in event["data"]
                assert hashed not in event["data"]


def test_resume_links_are_redacted_from_the_access_log(
    start_server: Callable[..., Server],
) -> None:
    server = start_server()
    with httpx.Client(base_url=server.url) as client:
        created = client.post("/api/v1/games", json={"name": "Ann"}).json()
        game_id, token = created["game"]["id"], created["token"]
        asked = client.get(f"/games/{game_id}/resume/{token}")  # the page that asks first
        assert asked.status_code == 200
        csrf = re.search(r'data-csrf-token="([^"]+)"', asked.text)
        assert csrf
        resumed = client.post(
            f"/games/{game_id}/resume/{token}",
            data={"csrf_token": csrf.group(1)},
            follow_redirects=False,
        )
        assert resumed.status_code == 303
        client.get("/healthz")  # written after the resume line: the log has caught up
    server.stop()
    log = server.log_path.read_text()
    assert f"/games/{game_id}/resume/{REDACTED}" in log
    assert token not in log


def test_the_redaction_filter_rewrites_messages_and_arguments() -> None:
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/games/G1/resume/tok-EN_123?x=1", "1.1", 303),
        None,
    )
    assert RedactSecrets().filter(record)
    assert record.getMessage() == (
        f'127.0.0.1:5000 - "GET /games/G1/resume/{REDACTED}?x=1 HTTP/1.1" 303'
    )
    assert redact("/games/G1 and /games/G1/resume/") == "/games/G1 and /games/G1/resume/"


@pytest.mark.parametrize("path", ["/api/v1/games", "/games"])
def test_a_cross_site_form_cannot_create_through_a_simple_request(
    client: TestClient, path: str
) -> None:
    """A cross-site form can send text/plain or a form, never JSON: both are refused."""
    plain = client.post(path, content='{"name": "Eve"}', headers={"Content-Type": "text/plain"})
    assert plain.status_code in (403, 422), plain.status_code
