"""CPU a version's readers spend asking who is at the table, in one process per checkout.

    .venv/bin/python bench/presence.py [--spectators 0 50] [--compare-with CHECKOUT]

Every page's stream, at every wake, asks the game's presence when to wake next
(``next_change_in``) and what the table is (``table``). This plays one version's worth of
those questions for a four-seat game with its four seats present and ``--spectators`` more
readers, 300 times, and prints the median µs per version; with ``--compare-with`` the other
checkout does the same in its own process, right after.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHILD = "--child"


def child(spectators: int) -> None:
    from app.live.presence import Presence

    presence = Presence(60)
    for seat in range(4):
        presence.enter("g", seat)
    for _ in range(spectators):
        presence.enter("g", None)
    readers = 4 + spectators
    times = []
    for _ in range(300):
        started = time.perf_counter()
        for _reader in range(readers):
            presence.next_change_in("g", 4)
            presence.table("g", 4)
        times.append(time.perf_counter() - started)
    print(f"{1e6 * statistics.median(times):.1f}")


def measure(root: Path, spectators: int) -> float:
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), CHILD, str(spectators)],
        cwd=root,
        env={"PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.split()[-1])


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == CHILD:
        sys.path.insert(0, str(Path.cwd()))
        child(int(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--spectators", type=int, nargs="+", default=[0, 50])
    parser.add_argument("--compare-with", type=Path, metavar="CHECKOUT")
    arguments = parser.parse_args()
    print(
        f"{'readers':>8} {'this µs':>9}"
        + (f" {'other µs':>9} {'ratio':>6}" if arguments.compare_with else "")
    )
    for spectators in arguments.spectators:
        this = measure(ROOT, spectators)
        line = f"{4 + spectators:8} {this:9.1f}"
        if arguments.compare_with:
            other = measure(arguments.compare_with.resolve(), spectators)
            line += f" {other:9.1f} {this / other:6.2f}"
        print(line)


if __name__ == "__main__":
    main()
