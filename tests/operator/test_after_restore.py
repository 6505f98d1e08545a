"""``penta after-restore``: after the database was put back by its own tools (``pg_restore`` on
PostgreSQL), the games that were being played are closed, as ``penta restore`` closes them, so
no dice repeat rolls already seen; refused while a server uses the database (issue 27)."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from tests.live_server import Server
from tests.operator.test_startup import one_line_refusal, penta


def test_after_restore_closes_the_games_in_play_and_waits_for_every_server_to_stop(
    start_server: Callable[..., Server],
) -> None:
    server = start_server()
    settings = {
        name: value
        for name, value in server.environment.items()
        if name in ("PENTA_DATA_DIR", "PENTA_DATABASE_URL", "PENTA_SECRET_KEY")
    }
    with httpx.Client(base_url=server.url, timeout=30) as client:
        created = client.post("/api/v1/games", json={"name": "Ann"}).json()
        game_id, headers = created["game"]["id"], {"Authorization": f"Bearer {created['token']}"}
        assert client.post(f"/api/v1/games/{game_id}/start", headers=headers).status_code == 200
        roll = f"/api/v1/games/{game_id}/roll"
        assert client.post(roll, json={}, headers=headers).status_code == 200
        waiting = client.post("/api/v1/games", json={"name": "Cy"}).json()["game"]["id"]

        # A server holds the database: refused, in one line, and nothing changes.
        refusal = one_line_refusal(penta("after-restore", **settings))
        assert refusal == (
            "penta: a Penta server is using the database: stop every worker, then run "
            "penta after-restore"
        )
        assert client.get(f"/api/v1/games/{game_id}").json()["status"] == "playing"

    server.stop()
    result = penta("after-restore", **settings)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "closed 1 game in play: their dice could repeat rolls already seen\n"
    server.log = server.log_path.open("a")
    server.restart()
    with httpx.Client(base_url=server.url, timeout=30) as client:
        game = client.get(f"/api/v1/games/{game_id}").json()
        assert (game["status"], game["closed_reason"]) == ("abandoned", "restored")
        assert client.post(roll, json={"hold": []}, headers=headers).status_code == 409
        assert client.get(f"/api/v1/games/{waiting}").json()["status"] == "waiting"
