"""Connections from outside: head size and time, connections and live streams per address
and in all, and shutdown with streams open — each against ``uvicorn app.main:app`` started
with no flag but its host and port, as an operator might run it."""

from __future__ import annotations

import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.live_server import Server

pytestmark = pytest.mark.slow

OTHER_ADDRESS = "127.0.0.2"  # the loopback network is all ours: another client address


@pytest.fixture
def plain_server(tmp_path: Path, strategy_table: Path) -> Iterator[Callable[..., Server]]:
    servers: list[Server] = []

    def start(**env: str) -> Server:
        server = Server(tmp_path / f"plain{len(servers)}", strategy_table, flags=(), **env)
        servers.append(server)
        return server

    yield start
    for server in servers:
        if server.process.poll() is None:
            server.stop()


def _resident_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _other_client(server: Server) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=OTHER_ADDRESS)
    return httpx.Client(base_url=server.url, transport=transport, timeout=10)


def _play_a_little(client: httpx.Client) -> None:
    """Create, start, roll and score: every answer a success."""
    created = client.post("/api/v1/games", json={"name": "Bea"})
    assert created.status_code == 201, created.text
    game_id, token = created.json()["game"]["id"], created.json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    assert client.post(f"/api/v1/games/{game_id}/start", headers=auth).status_code == 200
    assert client.post(f"/api/v1/games/{game_id}/roll", json={}, headers=auth).status_code == 200
    scored = client.post(f"/api/v1/games/{game_id}/score", json={"box": "chance"}, headers=auth)
    assert scored.status_code == 200


def _send_huge_head(url_port: int, size: int, answers: list[bytes]) -> None:
    with socket.create_connection(("127.0.0.1", url_port), timeout=30) as connection:
        connection.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ")
        chunk = b"a" * (1 << 20)
        try:
            for _ in range(size // len(chunk)):
                connection.sendall(chunk)
        except OSError:
            pass  # refused and closed: the rest is never read
        try:
            answers.append(connection.recv(200))
        except OSError:
            answers.append(b"")


def test_twenty_huge_unfinished_heads_cost_little_memory_and_others_are_served(
    plain_server: Callable[..., Server],
) -> None:
    server = plain_server()
    with httpx.Client(base_url=server.url) as client:
        client.get("/")  # the first page's templates and catalogs are loaded
    before = _resident_bytes(server.process.pid)
    answers: list[bytes] = []
    senders = [
        threading.Thread(target=_send_huge_head, args=(server.port, 20 << 20, answers))
        for _ in range(20)
    ]
    for sender in senders:
        sender.start()
    with _other_client(server) as other:
        _play_a_little(other)
        assert other.get("/healthz").status_code == 200
    for sender in senders:
        sender.join(timeout=60)
    grown = _resident_bytes(server.process.pid) - before
    print(f"\n20 x 20 MiB heads: the server grew by {grown / 1e6:.1f} MB")
    assert grown < 32 * 1024 * 1024
    assert len(answers) == 20
    assert all(answer.startswith(b"HTTP/1.1 431") or answer == b"" for answer in answers)
    assert any(answer.startswith(b"HTTP/1.1 431") for answer in answers)


def test_a_head_sent_too_slowly_is_answered_408_and_an_idle_connection_is_closed(
    plain_server: Callable[..., Server],
) -> None:
    server = plain_server(PENTA_HEADER_TIMEOUT_SECONDS="1")
    with (
        socket.create_connection(("127.0.0.1", server.port), timeout=10) as slow,
        socket.create_connection(("127.0.0.1", server.port), timeout=10) as idle,
    ):
        slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        began = time.monotonic()
        assert slow.recv(100).startswith(b"HTTP/1.1 408")
        assert idle.recv(100) == b"", "closed without a word: nobody asked anything"
        assert time.monotonic() - began < 5


def test_a_body_refused_before_it_arrived_is_read_to_its_end_and_the_connection_goes_on(
    plain_server: Callable[..., Server],
) -> None:
    """A 413 answered from the head alone: the body that follows is that request's, not the
    next head (which once made the next request on the connection a 431)."""
    server = plain_server()
    body = b"[" * 200_000  # far over both the body limit and the head limit
    head = (
        b"POST /api/v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as connection:
        connection.sendall(head)
        answer = _response(connection)
        assert answer.startswith(b"HTTP/1.1 413"), answer
        connection.sendall(body)
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answer = _response(connection)
        assert answer.startswith(b"HTTP/1.1 200"), f"the next request is served: {answer!r}"


def _response(connection: socket.socket) -> bytes:
    """One whole response read from ``connection``: its head and its Content-Length of body,
    however the network cut them into segments."""
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = connection.recv(4096)
        if not chunk:
            return received
        received += chunk
    head, _, rest = received.partition(b"\r\n\r\n")
    length = next(
        (
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")[1:]
            if line.lower().startswith(b"content-length:")
        ),
        0,
    )
    while len(rest) < length:
        chunk = connection.recv(4096)
        if not chunk:
            break
        rest += chunk
    return head + b"\r\n\r\n" + rest


def _open_from_one_address(port: int, count: int, request: bytes | None) -> list[socket.socket]:
    sockets = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", port), timeout=10)
        if request:
            connection.sendall(request)
        sockets.append(connection)
    return sockets


def _status(connection: socket.socket, wait: float) -> bytes:
    """The status line the server sent on ``connection`` within ``wait`` seconds, or b""."""
    connection.settimeout(wait)
    try:
        return connection.recv(4096).split(b"\r\n", 1)[0]
    except TimeoutError:
        return b""
    except OSError:
        return b"closed"


def test_two_thousand_idle_connections_from_one_address_are_capped_and_others_play(
    plain_server: Callable[..., Server],
) -> None:
    server = plain_server(PENTA_MAX_CONNECTIONS_PER_ADDRESS="64", PENTA_HEADER_TIMEOUT_SECONDS="30")
    sockets = _open_from_one_address(server.port, 2000, None)
    try:
        statuses = [_status(connection, 0.01) for connection in sockets[:100]]
        statuses += [_status(connection, 0.5) for connection in sockets[100:101]]
        refused = [status for status in statuses if status.startswith(b"HTTP/1.1 429")]
        assert len(refused) >= 100 - 64, "beyond 64 connections from one address: 429"
        assert statuses[:64] == [b""] * 64, "the first 64 wait for their requests"
        with _other_client(server) as other:
            _play_a_little(other)
            assert other.get("/healthz").status_code == 200
    finally:
        for connection in sockets:
            connection.close()


def test_two_thousand_live_streams_from_one_address_are_capped_and_others_play(
    plain_server: Callable[..., Server],
) -> None:
    server = plain_server(PENTA_MAX_STREAMS_PER_ADDRESS="16")
    with httpx.Client(base_url=server.url) as client:
        game_id = client.post("/api/v1/games", json={"name": "Ann"}).json()["game"]["id"]
    request = f"GET /games/{game_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    sockets = _open_from_one_address(server.port, 2000, request)
    try:
        time.sleep(1)  # every connection has had its answer, 200 or 429
        statuses = [_status(connection, 0.05) for connection in sockets]
        assert statuses.count(b"HTTP/1.1 200 OK") == 16
        # 48 more connections get 429 from the stream cap, the rest from the connection cap.
        assert statuses.count(b"HTTP/1.1 429 Too Many Requests") == 2000 - 16
        with _other_client(server) as other:
            _play_a_little(other)
            with other.stream("GET", f"/games/{game_id}/events") as stream:
                assert stream.status_code == 200, "another address still gets its stream"
            assert other.get("/healthz").json()["live_streams"] >= 16
    finally:
        for connection in sockets:
            connection.close()


def test_sigterm_with_fifty_open_streams_exits_within_two_seconds_without_a_traceback(
    plain_server: Callable[..., Server],
) -> None:
    server = plain_server(PENTA_MAX_STREAMS_PER_ADDRESS="0")
    with httpx.Client(base_url=server.url) as client:
        game_id = client.post("/api/v1/games", json={"name": "Ann"}).json()["game"]["id"]
    request = f"GET /games/{game_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    sockets = _open_from_one_address(server.port, 50, request)
    try:
        assert [_status(connection, 5) for connection in sockets] == [b"HTTP/1.1 200 OK"] * 50
        assert httpx.get(f"{server.url}/healthz").json()["live_streams"] == 50
        began = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(timeout=30)
        took = time.monotonic() - began
    finally:
        for connection in sockets:
            connection.close()
    server.log.flush()
    log = server.log_path.read_text()
    print(f"\nSIGTERM with 50 streams: exited in {took:.2f} s")
    assert took < 2.0
    # uvicorn ends by raising the signal it caught again, as a process without it would.
    assert server.process.returncode in (0, -signal.SIGTERM)
    assert "Traceback" not in log
    assert "Cancel" not in log, "no stream had to be cancelled"
