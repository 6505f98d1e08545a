"""The standalone verifier of docs/fairness.md, exactly as printed there (a test holds the
two to each other): standard library only, so that anyone can read it and run it.

Run it on a game's log: ``curl -s https://HOST/api/v1/games/GAME_ID/log | python3 verifier.py``.
"""

import hashlib
import hmac
import itertools
import json
import sys
from collections.abc import Iterator
from typing import Any


def faces(seed: bytes, message: str) -> Iterator[int]:
    for k in itertools.count():
        for byte in hmac.new(seed, f"{message}:{k}".encode(), hashlib.sha256).digest():
            if byte < 252:
                yield byte % 6 + 1


def check(log: dict[str, Any]) -> list[str]:
    fairness, problems = log["fairness"], []
    seed = bytes.fromhex(fairness["server_seed"])
    if hashlib.sha256(seed).hexdigest() != fairness["commitment"]:
        problems.append("the server seed does not match the commitment")
    client_seeds = ":".join(seat["client_seed"] for seat in fairness["client_seeds"])
    before = [0] * 5
    for n, roll in enumerate(log["rolls"]):
        stream = faces(seed, f"{log['game_id']}:{n}:{client_seeds}")
        kept = zip(before, roll["held"], strict=True)
        dice = [old if held else next(stream) for old, held in kept]
        if dice != roll["dice"]:
            problems.append(f"roll {n} (seat {roll['seat']}): {roll['dice']}, seeds give {dice}")
        before = dice
    return problems


if __name__ == "__main__":
    log = json.load(sys.stdin)
    problems = check(log)
    print("\n".join(problems) or f"all {len(log['rolls'])} rolls match")
    sys.exit(1 if problems else 0)
