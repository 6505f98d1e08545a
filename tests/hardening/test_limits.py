"""Limits: games and seats per client address, request size, name length, trusted proxies."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from fastapi.testclient import TestClient

from app.web.plumbing.limits import MAX_ADDRESSES, RateLimiter
from tests.hardening.conftest import csrf_token
from tests.live_server import Server


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_allows_its_burst_then_refills_at_its_rate() -> None:
    clock = Clock()
    limiter = RateLimiter(6, clock=clock)  # six a minute: one every ten seconds
    assert [limiter.take("create", "198.51.100.7") for _ in range(6)] == [0.0] * 6
    assert limiter.take("create", "198.51.100.7") == pytest.approx(10.0)
    assert limiter.take("join", "198.51.100.7") == 0.0, "each action has its own bucket"
    assert limiter.take("create", "198.51.100.8") == 0.0, "each address has its own bucket"
    clock.now += 9.0
    assert limiter.take("create", "198.51.100.7") == pytest.approx(1.0)
    clock.now += 1.0
    assert limiter.take("create", "198.51.100.7") == 0.0
    assert limiter.take("create", "198.51.100.7") == pytest.approx(10.0)


def test_a_limit_of_zero_is_off_and_memory_stays_bounded() -> None:
    assert all(RateLimiter(0).take("create", "x") == 0.0 for _ in range(1000))
    limiter = RateLimiter(1)
    for number in range(MAX_ADDRESSES + 50):
        limiter.take("create", f"10.0.{number // 256}.{number % 256}")
    assert len(limiter._buckets) == MAX_ADDRESSES


def test_creating_and_joining_through_the_api_are_limited_with_429(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(rate_limit_per_minute=3)
    created = [client.post("/api/v1/games", json={"name": f"P{n}"}) for n in range(3)]
    assert [response.status_code for response in created] == [201, 201, 201]
    refused = client.post("/api/v1/games", json={"name": "P4"})
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert refused.json()["error"]["message"].startswith("too many requests from your address")
    assert 1 <= int(refused.headers["retry-after"]) <= 20
    game_id = created[0].json()["game"]["id"]
    joins = [
        client.post(f"/api/v1/games/{game_id}/players", json={"name": f"J{n}"}) for n in range(4)
    ]
    assert [response.status_code for response in joins] == [201, 201, 201, 429]


def test_creating_and_joining_on_the_pages_are_limited_with_a_clear_page(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(rate_limit_per_minute=2)
    token = csrf_token(client)  # type: ignore[arg-type]
    form = {"name": "Ann", "mode": "friends", "csrf_token": token}
    statuses = [
        client.post("/games", data=form, follow_redirects=False).status_code for _ in range(2)
    ]
    assert statuses == [303, 303]
    refused = client.post("/games", data=form, headers={"Accept": "text/html"})
    assert refused.status_code == 429
    assert "too many requests from your address: try again in" in refused.text
    assert refused.headers["content-type"].startswith("text/html")


def test_a_body_over_the_limit_is_refused_with_413_before_it_is_read(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(max_body_bytes=4096)
    big_name = "x" * 5000
    api = client.post("/api/v1/games", json={"name": big_name})
    assert api.status_code == 413
    assert api.json()["error"] == {
        "code": "too_large",
        "message": "the request is too large: at most 4096 bytes",
    }
    assert api.headers["x-content-type-options"] == "nosniff"
    unread = client.post("/api/v1/games/anything/start", content=b"z" * 5000)
    assert unread.status_code == 413, "refused even where the body would not be read"

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"name": "'
        for _ in range(10):
            yield b"y" * 1000
        yield b'"}'

    streamed = client.post(
        "/api/v1/games", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert streamed.status_code == 413
    token = csrf_token(client)  # type: ignore[arg-type]
    page = client.post(
        "/games",
        data={"name": big_name, "csrf_token": token},
        headers={"Accept": "text/html"},
    )
    assert page.status_code == 413
    assert "the request is too large: at most 4096 bytes" in page.text


def test_names_are_at_most_32_characters(client: TestClient) -> None:
    api = client.post("/api/v1/games", json={"name": "n" * 33})
    assert api.status_code == 422
    assert api.json()["error"]["code"] == "invalid"
    token = csrf_token(client)  # type: ignore[arg-type]
    page = client.post(
        "/games", data={"name": "n" * 33, "csrf_token": token}, headers={"Accept": "text/html"}
    )
    assert page.status_code == 422
    assert "a name has at most 32 characters" in page.text
    huge = client.post(
        "/games", data={"name": "n" * 5000, "csrf_token": token}, headers={"Accept": "text/html"}
    )
    assert huge.status_code == 422
    assert "some of the fields sent are not valid" in huge.text
    assert client.post("/api/v1/games", json={"name": "n" * 5000}).json()["error"] == {
        "code": "invalid",
        "message": "name: String should have at most 32 characters",
    }


def _create_from(client: httpx.Client, address: str) -> int:
    headers = {"X-Forwarded-For": address}
    return client.post("/api/v1/games", json={"name": "Ann"}, headers=headers).status_code


def test_behind_a_trusted_proxy_the_limits_count_each_forwarded_address(
    start_server: Callable[..., Server],
) -> None:
    server = start_server(PENTA_RATE_LIMIT_PER_MINUTE="2", PENTA_TRUSTED_PROXIES="127.0.0.1")
    with httpx.Client(base_url=server.url) as client:
        assert [_create_from(client, "203.0.113.1") for _ in range(3)] == [201, 201, 429]
        assert _create_from(client, "203.0.113.2") == 201
    https = httpx.get(f"{server.url}/", headers={"X-Forwarded-Proto": "https"})
    assert https.headers["set-cookie"].endswith("; Secure")
    plain = httpx.get(f"{server.url}/")
    assert "Secure" not in plain.headers["set-cookie"]


@pytest.mark.parametrize(
    "trust",
    [
        {},  # the default: no proxy is trusted, not even loopback (uvicorn's own default)
        {"PENTA_TRUSTED_PROXIES": "192.0.2.10"},
        {"FORWARDED_ALLOW_IPS": "127.0.0.1"},  # uvicorn's variable no longer decides
    ],
)
def test_forwarded_addresses_from_an_untrusted_peer_are_ignored(
    start_server: Callable[..., Server], trust: dict[str, str]
) -> None:
    server = start_server(PENTA_RATE_LIMIT_PER_MINUTE="2", **trust)
    with httpx.Client(base_url=server.url) as client:
        statuses = [_create_from(client, f"203.0.113.{n}") for n in range(3)]
        assert statuses == [201, 201, 429], "a client cannot choose its address"
    page = httpx.get(f"{server.url}/", headers={"X-Forwarded-Proto": "https"})
    assert "Secure" not in page.headers["set-cookie"]
