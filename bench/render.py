"""Time to render each fragment of the shared live board, in one process, for comparing two
checkouts where ``bench/capacity.py``'s CPU per move drifts more than the difference.

    .venv/bin/python bench/render.py [--games 10] [--renders 300] [--rounds 3]
                                     [--compare-with CHECKOUT]

Each run is a fresh process on a checkout: the app in that process (SQLite in a temporary
folder), ``--games`` four-player games played through the bot API to round 3 and a first roll
(the mover's boxes offered), then every fragment of the board rendered as the live path renders
it for every reader (shared, English), ``--renders`` times for each game's view; the figure is
the median per game, averaged over the games (the dice differ from game to game and run to
run; the games average that out). With ``--compare-with`` the two checkouts run in turn, each
round, and the ratio is printed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def child(root: Path, games: int, renders: int) -> dict[str, float]:
    """µs per rendering of each fragment, on the checkout at ``root`` (run in its own process)."""
    sys.path.insert(0, str(root))
    from fastapi.testclient import TestClient

    from app import i18n
    from app.settings import Settings
    from app.store.migrate import upgrade
    from app.web.board_parts import SHARED_BOARD, board_context
    from app.web.factory import create_app
    from app.web.templating import render

    sys.path.insert(0, str(ROOT))
    from bench.servers import BENCH_SECRET_KEY, ensure_strategy_table

    folder = Path(tempfile.mkdtemp())
    settings = Settings(
        data_dir=folder,
        strategy_table=ensure_strategy_table(ROOT / "data" / "bench-strategy"),
        secret_key=BENCH_SECRET_KEY,
        allowed_hosts="testserver",
        actions_per_minute=0,
        seat_actions_per_minute=0,
        rate_limit_per_minute=0,
    )
    app: Any = create_app(settings)
    upgrade(settings.resolved_database_url)
    client = TestClient(app)
    views = []
    for _ in range(games):
        created = client.post("/api/v1/games", json={"name": "Ann"}).json()
        game_id, tokens = created["game"]["id"], [created["token"]]
        for name in ("Bob", "Cy", "Di"):
            joined = client.post(f"/api/v1/games/{game_id}/players", json={"name": name})
            tokens.append(joined.json()["token"])
        auth = [{"Authorization": f"Bearer {token}"} for token in tokens]
        client.post(f"/api/v1/games/{game_id}/start", headers=auth[0])
        for turn in range(8):
            path = f"/api/v1/games/{game_id}"
            rolled = client.post(f"{path}/roll", json={"hold": []}, headers=auth[turn % 4])
            box = next(iter(rolled.json()["options"]))
            client.post(f"{path}/score", json={"box": box}, headers=auth[turn % 4])
        client.post(f"/api/v1/games/{game_id}/roll", json={"hold": []}, headers=auth[0])
        views.append(app.state.service.get(game_id))
    templates = app.state.templates
    figures: dict[str, list[float]] = {part.template: [] for part in SHARED_BOARD}
    for view in views:
        with i18n.language("en") as current:
            context = board_context(
                view,
                lang=current,
                shared=True,
                holder=None,
                moved=False,
                site="http://127.0.0.1/",
                auto_seconds=3.0,
                hints=None,
            )
            for name, times in figures.items():
                for _ in range(20):  # warm
                    render(templates, name, **context)
                each = []
                for _ in range(renders):
                    started = time.perf_counter()
                    render(templates, name, **context)
                    each.append(time.perf_counter() - started)
                times.append(statistics.median(each) * 1e6)
    return {name: statistics.mean(times) for name, times in figures.items()}


def run(root: Path, games: int, renders: int) -> dict[str, float]:
    command = [sys.executable, __file__, "--child", str(root), "--games", str(games)]
    command += ["--renders", str(renders)]
    done = subprocess.run(command, check=True, capture_output=True, text=True, cwd=root)
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--renders", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--compare-with", type=Path)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.child.resolve(), args.games, args.renders)))
        return
    rounds: list[tuple[dict[str, float], dict[str, float] | None]] = []
    for number in range(1, args.rounds + 1):
        print(f"round {number} ...", file=sys.stderr, flush=True)
        this = run(ROOT, args.games, args.renders)
        other = None
        if args.compare_with is not None:
            other = run(args.compare_with.resolve(), args.games, args.renders)
        rounds.append((this, other))
    print(f"µs a rendering, median per game, mean of {args.games} games; median of the rounds")
    print(f"{'fragment':40} {'this':>8} {'compared':>9} {'ratio':>6}  ratio by round")
    for name in rounds[0][0]:
        mine = statistics.median(this[name] for this, _ in rounds)
        line = f"{name:40} {mine:8.1f}"
        others = [other[name] for _, other in rounds if other is not None and name in other]
        if others:
            ratios = [this[name] / other[name] for this, other in rounds if other is not None]
            each = " ".join(f"{ratio:.2f}" for ratio in ratios)
            line += f" {statistics.median(others):9.1f} {statistics.median(ratios):6.2f}  {each}"
        print(line)


if __name__ == "__main__":
    main()
