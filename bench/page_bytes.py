"""Bytes of the pages and the board's htmx answers on the wire, gzipped and not, and the CPU
the gzipping takes, in one process (issue #25, "Bytes on the wire").

    .venv/bin/python bench/page_bytes.py [--repeat 500]

The app runs in this process (SQLite in a temporary folder, the strategy table of
``--strategy-table``), asked as a browser asks, once with ``Accept-Encoding: gzip`` and once
without: the home page, the rules, a four-player game's page in its third round, the answer
to a roll there (htmx), and the board a page that missed a version fetches. For each: the body
as rendered, as it went over the wire, and the median µs of gzipping that body as
``app.web.compression`` does (``--repeat`` times), beside the median µs of the whole request
without gzip (httpx's test client included, so an upper bound of what the app spends).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def median_us(call: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return 1e6 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=500)
    parser.add_argument("--strategy-table", type=Path, default=ROOT / "data" / "strategy")
    arguments = parser.parse_args()

    from fastapi.testclient import TestClient

    from app.settings import Settings
    from app.web.compression import LEVEL, gzip_body
    from app.web.factory import create_app

    settings = Settings(
        data_dir=Path(tempfile.mkdtemp(prefix="penta-bytes-")),
        strategy_table=arguments.strategy_table,
        secret_key="bench-secret-key-0123456789abcdef-0123456789",
        allowed_hosts="testserver",
        rate_limit_per_minute=0,
        actions_per_minute=0,
        seat_actions_per_minute=0,
    )

    with TestClient(create_app(settings), base_url="http://testserver") as browser:
        home = browser.get("/").text
        csrf = re.search(r'name="csrf_token" value="([0-9a-f]{64})"', home)
        assert csrf, "the home page carries a CSRF token"
        token = csrf.group(1)
        htmx = {"HX-Request": "true", "X-CSRF-Token": token}
        # A four-player game: the host and three bots, played to round 3's first roll.
        seats = []
        host = browser.post("/api/v1/games", json={"name": "Ann"}).json()
        game_id = host["game"]["id"]
        seats.append({"Authorization": f"Bearer {host['token']}"})
        for name in ("Bob", "Cho", "Dee"):
            joined = browser.post(f"/api/v1/games/{game_id}/players", json={"name": name}).json()
            seats.append({"Authorization": f"Bearer {joined['token']}"})
        browser.post(f"/api/v1/games/{game_id}/start", headers=seats[0], json={})
        api = f"/api/v1/games/{game_id}"
        while (game := browser.get(api).json())["round"] < 3 or game["dice"] is not None:
            bearer = seats[game["turn"]]
            if game["dice"] is None:
                browser.post(f"{api}/roll", headers=bearer, json={"hold": []})
            else:
                box = max(game["options"], key=game["options"].get)
                browser.post(f"{api}/score", headers=bearer, json={"box": box})
        # The browser holds the seat to move, as the player's own page does.
        browser.cookies.set(
            f"penta_seat_{game_id}",
            seats[game["turn"]]["Authorization"].removeprefix("Bearer "),
            path=f"/games/{game_id}",
        )
        asked: list[tuple[str, Callable[[dict[str, str]], object]]] = [
            ("home page", lambda h: browser.get("/", headers=h)),
            ("rules page", lambda h: browser.get("/rules", headers=h)),
            ("game page, round 3", lambda h: browser.get(f"/games/{game_id}", headers=h)),
            (
                "board (resync)",
                lambda h: browser.get(f"/games/{game_id}/board", headers={**htmx, **h}),
            ),
        ]
        rows = []
        for name, ask in asked:
            plain = ask({"Accept-Encoding": "identity"})
            zipped = ask({"Accept-Encoding": "gzip"})
            body = plain.content  # type: ignore[attr-defined]
            rows.append(
                (
                    name,
                    len(body),
                    zipped.num_bytes_downloaded,  # type: ignore[attr-defined]
                    median_us(lambda body=body: gzip_body(body), arguments.repeat),
                    median_us(lambda ask=ask: ask({"Accept-Encoding": "identity"}), 50),
                )
            )
        rolled = browser.post(f"/games/{game_id}/roll", headers={**htmx, "Accept-Encoding": "gzip"})
        assert rolled.status_code == 200, rolled.text
        body = rolled.content
        rows.append(
            (
                "roll's answer (htmx)",
                len(body),
                rolled.num_bytes_downloaded,
                median_us(lambda: gzip_body(body), arguments.repeat),
                float("nan"),
            )
        )

    print(f"gzip level {LEVEL}; median of {arguments.repeat} compressions")
    print(
        f"{'answer':24} {'bytes':>8} {'on wire':>8} {'ratio':>6} {'gzip µs':>8} {'request µs':>11}"
    )
    for name, raw, wire, gzip_us, request_us in rows:
        request = "-" if request_us != request_us else f"{request_us:.0f}"  # (NaN: not timed)
        print(f"{name:24} {raw:8,} {wire:8,} {wire / raw:6.2f} {gzip_us:8.0f} {request:>11}")


if __name__ == "__main__":
    main()
