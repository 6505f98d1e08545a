"""Deadline benchmark: how late the server records the box of bots that go silent.

    .venv/bin/python bench/deadlines.py [--games 200] [--auto 3] [--grace 1]

Starts Penta (one uvicorn worker, SQLite, loopback only). Each of ``--games`` bots creates a
solo game through the bot API, rolls three times and goes silent, one bot after another as
fast as they can, so the deadlines fall due in a burst. The server must then record the
computer's box in every game at its deadline plus the grace. When all are recorded (or after
a bound), the stored log is read: each game's moment of recording (``games.updated_at``,
written by that move) against its due time, and the number of boxes per game (exactly one).
Prints the lateness percentiles and any game recorded late, twice or never.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.servers import Uvicorn, ensure_strategy_table


def silent_bots(url: str, games: int) -> dict[str, datetime]:
    """Start ``games`` games, roll three times in each; each game's deadline as sent."""
    deadlines: dict[str, datetime] = {}
    with httpx.Client(base_url=url, timeout=30) as client:
        for _ in range(games):
            created = client.post("/api/v1/games", json={"name": "Bot"}).json()
            game_id, token = created["game"]["id"], created["token"]
            auth = {"Authorization": f"Bearer {token}"}
            client.post(f"/api/v1/games/{game_id}/start", headers=auth).raise_for_status()
            game = {}
            for _ in range(3):
                answer = client.post(
                    f"/api/v1/games/{game_id}/roll", json={"hold": []}, headers=auth
                )
                answer.raise_for_status()
                game = answer.json()
            deadlines[game_id] = datetime.fromisoformat(game["deadline"])
    return deadlines


def recorded(database: Path) -> dict[str, tuple[datetime, int]]:
    """Each game's last change and how many boxes its log holds."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT g.id, g.updated_at, "
            "(SELECT COUNT(*) FROM actions a WHERE a.game_id = g.id AND a.kind = 'score') "
            "FROM games g"
        ).fetchall()
    return {
        game_id: (datetime.fromisoformat(updated).replace(tzinfo=UTC), scores)
        for game_id, updated, scores in rows
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--auto", type=float, default=3.0)
    parser.add_argument("--grace", type=float, default=1.0)
    arguments = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="penta-deadlines-"))
    table = ensure_strategy_table(Path(tempfile.gettempdir()) / "penta-bench-strategy")
    env = {
        "PENTA_DATA_DIR": str(work / "data"),
        "PENTA_STRATEGY_TABLE": str(table),
        "PENTA_RATE_LIMIT_PER_MINUTE": "0",
        "PENTA_AUTO_CONFIRM_SECONDS": str(arguments.auto),
        "PENTA_AUTO_CONFIRM_GRACE_SECONDS": str(arguments.grace),
    }
    with Uvicorn("app.main:app", env, log=work / "server.log") as server:
        started = time.monotonic()
        deadlines = silent_bots(server.url, arguments.games)
        setup = time.monotonic() - started
        grace = timedelta(seconds=arguments.grace)
        last_due = max(deadlines.values()) + grace
        bound = last_due + timedelta(seconds=30)
        database = work / "data" / "penta.db"
        while datetime.now(UTC) < bound:
            states = recorded(database)
            if all(states[game_id][1] >= 1 for game_id in deadlines):
                break
            time.sleep(0.2)
        states = recorded(database)
    lateness = []
    missing = twice = early = 0
    for game_id, deadline in deadlines.items():
        moment, scores = states[game_id]
        missing += scores == 0
        twice += scores > 1
        if scores:
            late = (moment - (deadline + grace)).total_seconds()
            early += late < 0
            lateness.append(late * 1000)
    lateness.sort()

    def percentile(share: float) -> float:
        return lateness[min(len(lateness) - 1, int(share * len(lateness)))]

    rule = f"auto-confirm {arguments.auto} s + grace {arguments.grace} s"
    print(f"{arguments.games} silent bots, {rule}")
    print(f"set-up (create, start, three rolls each): {setup:.1f} s")
    print(
        f"deadline to recorded box, ms: p50 {percentile(0.5):.1f}  p90 {percentile(0.9):.1f}  "
        f"p99 {percentile(0.99):.1f}  max {lateness[-1]:.1f}  mean {statistics.mean(lateness):.1f}"
    )
    print(f"recorded early: {early}  never: {missing}  twice or more: {twice}")


if __name__ == "__main__":
    main()
