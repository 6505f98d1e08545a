"""HEAD wherever GET is served; links built from the public address or an allowed host only."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx

from tests.hardening.conftest import csrf_token
from tests.live.test_live_updates import create, events
from tests.live_server import Server


def test_head_answers_as_get_without_a_body(server: Server) -> None:
    # One server for every path (a server per path cost the suite a start each).
    for path in ("/", "/healthz", "/rules", "/stats", "/docs", "/static/favicon.svg"):
        got = httpx.get(f"{server.url}{path}")
        head = httpx.head(f"{server.url}{path}")
        assert (got.status_code, head.status_code) == (200, 200), path
        assert head.content == b"", path
        assert head.headers["content-type"] == got.headers["content-type"], path


def test_head_answers_on_a_game_page_and_the_api(server: Server) -> None:
    with httpx.Client(base_url=server.url) as client:
        game_id, _token = create(client)
        for path in (f"/games/{game_id}", f"/api/v1/games/{game_id}"):
            head = client.head(path)
            assert head.status_code == 200, path
            assert head.content == b""
            got = client.get(path)  # (the page gzipped, as the HEAD says: the bytes sent)
            assert head.headers.get("content-encoding") == got.headers.get("content-encoding")
            assert int(head.headers["content-length"]) == got.num_bytes_downloaded
        assert client.head("/games/nothing-here").status_code == 404


def test_a_request_for_another_host_is_refused_and_never_reaches_a_link(server: Server) -> None:
    evil = {"Host": "evil.example"}
    for path in ("/", "/healthz", "/api/v1/games/x"):
        refused = httpx.get(f"{server.url}{path}", headers=evil)
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == "unknown_host"
    created = httpx.post(f"{server.url}/api/v1/games", json={"name": "Ann"}, headers=evil)
    assert created.status_code == 400
    with httpx.Client(base_url=server.url) as client:  # Host: 127.0.0.1:<port>, allowed
        created = client.post("/api/v1/games", json={"name": "Ann"})
        assert created.json()["game"]["url"].startswith(f"{server.url}/games/")
        assert client.get("/", headers={"Host": f"localhost:{server.port}"}).status_code == 200


def _share_link(html: str) -> str:
    match = re.search(r'id="share-link" readonly value="([^"]*)"', html)
    assert match, "the lobby shows the share link"
    return match.group(1)


def _friends_game(client: httpx.Client) -> str:
    form = {"name": "Ann", "mode": "friends", "csrf_token": csrf_token(client)}
    created = client.post("/games", data=form)
    assert created.status_code == 303
    return created.headers["location"].rsplit("/", 1)[1]


def test_every_link_is_built_from_the_public_address_when_it_is_set(
    start_server: Callable[..., Server],
) -> None:
    server = start_server(PENTA_PUBLIC_URL="https://penta.example/")
    with httpx.Client(base_url=server.url) as host, httpx.Client(base_url=server.url) as friend:
        game_id = _friends_game(host)
        lobby = host.get(f"/games/{game_id}")
        assert _share_link(lobby.text) == f"https://penta.example/games/{game_id}"
        resume = re.search(r'id="resume-link" readonly value="([^"]*)"', lobby.text)
        if resume:
            assert resume.group(1).startswith(f"https://penta.example/games/{game_id}/resume/")
        api = host.get(f"/api/v1/games/{game_id}").json()
        assert api["url"] == f"https://penta.example/games/{game_id}"
        assert host.get("/", headers={"Host": "penta.example"}).status_code == 200
        assert host.get("/", headers={"Host": "other.example"}).status_code == 400
        with host.stream("GET", f"/games/{game_id}/events?page=lobby&version=1") as stream:
            received = events(stream.iter_lines())
            join = {"name": "Bob", "csrf_token": csrf_token(friend)}
            assert friend.post(f"/games/{game_id}/join", data=join).status_code == 303
            update = next(received)
        assert _share_link(update["data"]) == f"https://penta.example/games/{game_id}"


def test_the_live_lobby_keeps_the_share_link_absolute_after_each_join(server: Server) -> None:
    with httpx.Client(base_url=server.url) as host:
        game_id = _friends_game(host)
        expected = f"{server.url}/games/{game_id}"
        assert _share_link(host.get(f"/games/{game_id}").text) == expected
        with host.stream("GET", f"/games/{game_id}/events?page=lobby&version=1") as stream:
            received = events(stream.iter_lines())
            for name in ("Bob", "Cy", "Di"):
                with httpx.Client(base_url=server.url) as friend:
                    join = {"name": name, "csrf_token": csrf_token(friend)}
                    assert friend.post(f"/games/{game_id}/join", data=join).status_code == 303
                update = next(received)
                assert name in update["data"]
                assert _share_link(update["data"]) == expected
