"""Lighthouse (npm, run with npx against the system Chromium) on the game page of a player in
mid-turn, as a phone, and the weight of that first page load, raw and gzip-compressed.

    .venv/bin/python bench/lighthouse.py [--runs 3]

Needs node/npx (Lighthouse 12 is fetched into npx's cache on the first run), Playwright and
/usr/bin/chromium (CHROME_PATH overrides it). Prints the figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.servers import Uvicorn, ensure_strategy_table  # noqa: E402

LIGHTHOUSE = "lighthouse@12.8.2"
CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
CATEGORIES = ("performance", "accessibility", "best-practices")


def game_in_mid_turn(url: str) -> tuple[str, str]:
    """A solo game after its first roll: its page's address and the seat's Cookie header."""
    with httpx.Client(base_url=url, timeout=10, follow_redirects=True) as client:
        home = client.get("/").text
        token = re.search(r'name="csrf_token" value="([0-9a-f]{64})"', home)
        assert token, "the home page carries a CSRF token"
        fields = {"csrf_token": token.group(1)}
        created = client.post("/games", data={**fields, "name": "Ann", "mode": "solo"})
        game = str(created.url)
        client.post(f"{game.removeprefix(url)}/roll", data={**fields, "turn": "0", "roll": "0"})
        cookie = "; ".join(f"{name}={value}" for name, value in client.cookies.items())
        return game, cookie


def page_weight(game: str, cookie: str) -> tuple[int, int, int]:
    """(requests, raw bytes, gzip bytes) of everything the first load of the page fetches."""
    from playwright.sync_api import sync_playwright

    bodies: list[bytes] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROME, args=["--no-sandbox"])
        context = browser.new_context(
            viewport={"width": 390, "height": 844}, extra_http_headers={"Cookie": cookie}
        )
        page = context.new_page()
        responses: list[object] = []
        page.on("response", lambda response: responses.append(response))
        page.goto(game, wait_until="networkidle")
        for response in responses:
            if "/events" in response.url or "/sw.js" in response.url:  # type: ignore[attr-defined]
                continue  # the live stream never ends; the worker comes after the page
            bodies.append(response.body())  # type: ignore[attr-defined]
        browser.close()
    raw = sum(len(body) for body in bodies)
    packed = sum(len(gzip.compress(body, compresslevel=6)) for body in bodies)
    return len(bodies), raw, packed


def lighthouse(game: str, cookie: str, folder: Path, run: int) -> dict[str, float]:
    report = folder / f"lighthouse-{run}.json"
    subprocess.run(
        [
            "npx", "--yes", LIGHTHOUSE, game,
            f"--only-categories={','.join(CATEGORIES)}",
            "--form-factor=mobile",
            "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
            f"--extra-headers={json.dumps({'Cookie': cookie})}",
            "--output=json", f"--output-path={report}", "--quiet",
        ],
        check=True,
        env={**os.environ, "CHROME_PATH": CHROME},
    )  # fmt: skip
    categories = json.loads(report.read_text())["categories"]
    return {name: round(categories[name]["score"] * 100) for name in CATEGORIES}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--strategy-table", type=Path, default=ROOT / "data" / "strategy")
    arguments = parser.parse_args()
    table = ensure_strategy_table(arguments.strategy_table)
    with tempfile.TemporaryDirectory(prefix="penta-lighthouse-") as folder:
        env = {"PENTA_DATA_DIR": f"{folder}/penta", "PENTA_STRATEGY_TABLE": str(table)}
        with Uvicorn("app.main:app", env, log=Path(folder) / "penta.log") as server:
            game, cookie = game_in_mid_turn(server.url)
            requests, raw, packed = page_weight(game, cookie)
            print(f"first load of the game page: {requests} requests, {raw / 1024:.1f} KB raw, "
                  f"{packed / 1024:.1f} KB gzip-compressed")  # fmt: skip
            scores = [lighthouse(game, cookie, Path(folder), run) for run in range(arguments.runs)]
    version = LIGHTHOUSE.split("@")[1]
    print(f"\nLighthouse {version}, mobile, the game page in mid-turn, {len(scores)} runs")
    for name in CATEGORIES:
        figures = [score[name] for score in scores]
        print(f"{name:>15}: median {statistics.median(figures):.0f}  (runs: {figures})")


if __name__ == "__main__":
    main()
