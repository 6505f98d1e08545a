"""deploy/nginx.conf in front of three workers, run by Debian's nginx: every request of a game
reaches one worker (its moves and its stream meet there, and nothing of it crosses the bus),
the requests of no game go round the workers, and a game whose worker dies goes on on another.
Which worker served a request is read from the workers' access logs."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.cluster.conftest import METRICS_TOKEN, Cluster, running_cluster
from tests.live_server import Server

NGINX = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
ROOT = Path(__file__).resolve().parents[2]
WAIT = 15.0


@dataclass
class Proxy:
    url: str
    cluster: Cluster

    def post(self, path: str, token: str | None = None, body: Any = None) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = httpx.post(f"{self.url}{path}", json=body, headers=headers, timeout=WAIT)
        assert response.status_code in (200, 201), response.text
        result: dict[str, Any] = response.json()
        return result

    def served(self, pattern: str) -> list[int]:
        """How many requests matching ``pattern`` each worker's access log shows."""
        line = re.compile(rf'"[A-Z]+ {pattern} HTTP/1\.1"')
        return [len(line.findall(worker.log_path.read_text())) for worker in self.cluster.workers]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _configuration(folder: Path, workers: list[Server], port: int) -> Path:
    """nginx's main configuration around the deployed site, its workers on loopback."""
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    for number, worker in enumerate(workers, start=1):
        assert f"server app{number}:8000;" in site
        site = site.replace(f"server app{number}:8000;", f"server 127.0.0.1:{worker.port};")
    assert "listen 80;" in site
    site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
    (folder / "site.conf").write_text(site)
    temporary = " ".join(
        f"{kind}_temp_path {folder / kind};" for kind in ("client_body", "proxy", "fastcgi")
    )
    main = folder / "nginx.conf"
    main.write_text(
        f"daemon off; worker_processes 1; pid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'};\n"
        "events { worker_connections 256; }\n"
        f"http {{ access_log off; {temporary} uwsgi_temp_path {folder / 'uwsgi'}; "
        f"scgi_temp_path {folder / 'scgi'}; include {folder / 'site.conf'}; }}\n"
    )
    return main


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory, strategy_table: Path) -> Iterator[Proxy]:
    if NGINX is None:
        pytest.skip("nginx (Debian's package) is not installed: the proxy's routing is untested")
    folder = tmp_path_factory.mktemp("proxy")
    # Unbuffered, so that each request is in the worker's access log once it is answered.
    with running_cluster(folder, strategy_table, PYTHONUNBUFFERED="1") as cluster:
        port = _free_port()
        main = _configuration(folder, cluster.workers, port)
        nginx = subprocess.Popen(
            [NGINX, "-c", str(main), "-p", str(folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + WAIT
            while True:
                assert nginx.poll() is None, (folder / "error.log").read_text()
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).is_success:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, "nginx never answered"
                time.sleep(0.1)
            yield Proxy(f"http://127.0.0.1:{port}", cluster)
        finally:
            nginx.terminate()
            nginx.wait(timeout=10)


def test_every_request_of_a_game_reaches_one_worker_and_the_lobby_goes_round(
    proxy: Proxy,
) -> None:
    before = proxy.served("/api/v1/games")
    created = [proxy.post("/api/v1/games", body={"name": f"P{n}"}) for n in range(6)]
    made = [now - then for now, then in zip(proxy.served("/api/v1/games"), before, strict=True)]
    assert made == [2, 2, 2], "requests of no game go round the workers"

    for seat in created:
        game_id, token = seat["game"]["id"], seat["token"]
        game = proxy.post(f"/api/v1/games/{game_id}/start", token)
        with httpx.stream(
            "GET", f"{proxy.url}/api/v1/games/{game_id}/events", timeout=WAIT
        ) as stream:
            assert stream.status_code == 200
            for _ in range(2):
                game = proxy.post(f"/api/v1/games/{game_id}/roll", token, {"hold": []})
        assert game["rolls_left"] == 1
        served = proxy.served(f"/api/v1/games/{game_id}/[a-z]+")
        assert sorted(served) == [0, 0, 4], f"{game_id}: {served}"  # start, stream, 2 rolls


def test_a_game_whose_worker_died_goes_on_on_another(proxy: Proxy) -> None:
    seat = proxy.post("/api/v1/games", body={"name": "Ann"})
    game_id, token = seat["game"]["id"], seat["token"]
    proxy.post(f"/api/v1/games/{game_id}/start", token)
    moves = f"/api/v1/games/{game_id}/roll"
    proxy.post(moves, token, {"hold": []})
    (home,) = [number for number, count in enumerate(proxy.served(moves)) if count]
    proxy.cluster.workers[home].kill()
    game = proxy.post(moves, token, {"hold": [0]})  # refused by the dead one, sent on
    assert game["rolls_left"] == 1
    game = proxy.post(moves, token, {"hold": [0, 1]})
    assert game["rolls_left"] == 0
    served = proxy.served(moves)
    assert served[home] == 1
    assert sorted(served) == [0, 1, 2], f"one other worker took the game over: {served}"


def test_the_workers_metrics_are_not_served_to_the_outside(proxy: Proxy) -> None:
    headers = {"Authorization": f"Bearer {METRICS_TOKEN}"}
    assert httpx.get(f"{proxy.url}/metrics", headers=headers).status_code == 404
    alive = [worker for worker in proxy.cluster.workers if worker.process.poll() is None]
    assert alive
    for worker in alive:  # where Prometheus scrapes them
        assert httpx.get(f"{worker.url}/metrics", headers=headers).status_code == 200
