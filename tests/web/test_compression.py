"""Pages and the board's htmx answers go gzipped to a browser that accepts it; what is not
worth it (small answers, the bots' JSON) or not accepted goes as it is (issue #25)."""

from __future__ import annotations

import gzip
from collections.abc import Callable

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.requests import Request
from starlette.responses import HTMLResponse

from app.web.compression import MINIMUM_BYTES, accepts_gzip, gzipped
from tests.web.test_pages import HTMX, new_solo_game, post

GZIP = {"Accept-Encoding": "gzip, deflate, br"}


def wire_bytes(response: httpx.Response) -> int:
    """The bytes of the body as they came over the wire (before httpx decoded them)."""
    return response.num_bytes_downloaded


def assert_gzipped(response: httpx.Response, *, ratio: float) -> None:
    assert response.status_code == 200, response.text
    assert response.headers["content-encoding"] == "gzip"
    assert "accept-encoding" in response.headers["vary"].lower()
    assert int(response.headers["content-length"]) == wire_bytes(response)
    assert wire_bytes(response) < ratio * len(response.content), (
        wire_bytes(response),
        len(response.content),
    )


def test_pages_and_the_boards_answers_are_gzipped_for_a_browser_that_accepts_it(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(dice_script="2,2,3,3,3")
    client.headers.update(GZIP)
    home = client.get("/")
    assert_gzipped(home, ratio=0.5)
    assert_gzipped(client.get("/rules"), ratio=0.4)
    game_id = new_solo_game(client)
    game = client.get(f"/games/{game_id}")
    assert_gzipped(game, ratio=0.4)
    assert 'id="dice-tray"' in game.text  # decoded as the browser decodes it
    rolled = post(client, f"/games/{game_id}/roll", turn=0, roll=0)
    assert_gzipped(rolled, ratio=0.4)
    assert "Roll (2 left)" in rolled.text
    # The board a page that missed a version fetches.
    assert_gzipped(client.get(f"/games/{game_id}/board", headers=HTMX), ratio=0.4)
    # A HEAD says the length a GET would get.
    head = client.head(f"/games/{game_id}")
    assert head.headers["content-encoding"] == "gzip"
    assert int(head.headers["content-length"]) > 0
    assert head.content == b""


def test_the_same_page_as_it_is_for_a_client_that_refuses_gzip(client: TestClient) -> None:
    gzipped = client.get("/rules", headers=GZIP)
    for refusal in ("identity", "gzip;q=0, br", "*;q=0", ""):
        plain = client.get("/rules", headers={"Accept-Encoding": refusal})
        assert "content-encoding" not in plain.headers, refusal
        assert wire_bytes(plain) == len(plain.content) == int(plain.headers["content-length"])
        assert plain.content == gzipped.content  # byte for byte, once decoded
        assert "accept-encoding" in plain.headers["vary"].lower()  # a cache keeps both


def test_an_answer_under_the_minimum_goes_as_it_is() -> None:
    request = Request({"type": "http", "headers": [(b"accept-encoding", b"gzip")]})
    small = gzipped(request, HTMLResponse("x" * (MINIMUM_BYTES - 1)))
    assert "content-encoding" not in small.headers
    assert "vary" not in small.headers  # nothing varies: every client gets these bytes
    assert small.body == b"x" * (MINIMUM_BYTES - 1)
    large = gzipped(request, HTMLResponse("x" * MINIMUM_BYTES))
    assert large.headers["content-encoding"] == "gzip"
    assert gzip.decompress(large.body) == b"x" * MINIMUM_BYTES


def test_the_bots_json_goes_as_it_is(client: TestClient) -> None:
    client.headers.update(GZIP)
    seat = client.post("/api/v1/games", json={"name": "Ann"}).json()
    game, bearer = seat["game"]["id"], {"Authorization": f"Bearer {seat['token']}"}
    assert client.post(f"/api/v1/games/{game}/start", headers=bearer).status_code == 200
    rolled = client.post(f"/api/v1/games/{game}/roll", headers=bearer, json={"hold": []})
    assert rolled.status_code == 200
    # The version's JSON, encoded once for the answer and every bot's stream: as it is.
    assert "content-encoding" not in rolled.headers
    assert len(rolled.content) > MINIMUM_BYTES


@pytest.mark.parametrize(
    ("header", "accepted"),
    [
        ("gzip", True),
        ("GZIP;q=0.5", True),
        ("deflate, gzip;q=0.001", True),
        ("x-gzip", True),
        ("*", True),
        ("br, *;q=0.1", True),
        ("gzip;q=0", False),
        ("gzip;q=0.0, *", False),
        ("gzip;q=nonsense", False),
        ("br, zstd", False),
        ("", False),
    ],
)
def test_accept_encoding_is_read_with_its_weights(header: str, accepted: bool) -> None:
    assert accepts_gzip(header) is accepted
