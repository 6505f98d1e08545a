"""The standalone verifier of docs/fairness.md, exactly as printed there (a test holds the
two to each other): standard library only, so that anyone can read it and run it.

Run it on a game's log: ``curl -s https://HOST/api/v1/games/GAME_ID/log | python3 verifier.py``.
"""

import argparse
import hashlib
import hmac
import itertools
import json
import re
import sys
from collections.abc import Iterator
from typing import Any

HEX64 = re.compile(r"[0-9a-f]{64}")


class Malformed(Exception):
    """The log cannot be checked: it is not a whole, well-formed transcript."""


def faces(seed: bytes, message: str) -> Iterator[int]:
    for k in itertools.count():
        for byte in hmac.new(seed, f"{message}:{k}".encode(), hashlib.sha256).digest():
            if byte < 252:
                yield byte % 6 + 1


def message(log: dict[str, Any], n: int) -> str:
    seeds, scheme = log["fairness"]["client_seeds"], log["fairness"]["scheme"]
    if scheme == 1:  # games from before scheme 2: the seeds joined with ":"
        return f"{log['game_id']}:{n}:" + ":".join(seat["client_seed"] for seat in seeds)
    named = ",".join(f"{seat['seat']}={seat['client_seed'].encode().hex()}" for seat in seeds)
    return f"2:{log['game_id']}:{n}:{named}"


def require(condition: bool, reason: str) -> None:
    if not condition:
        raise Malformed(reason)


def check_structure(log: Any) -> None:
    require(isinstance(log, dict), "the log is not a JSON object")
    fairness, rolls, seats = log.get("fairness"), log.get("rolls"), log.get("seats")
    require(isinstance(log.get("game_id"), str), "the log has no game id")
    require(isinstance(seats, int) and 1 <= seats <= 6, "the log does not say its seats")
    require(isinstance(fairness, dict) and isinstance(rolls, list), "no fairness or rolls")
    require(fairness.get("scheme") in (1, 2), "an unknown dice scheme")
    for name in ("commitment", "server_seed"):
        require(isinstance(fairness.get(name), str), f"no {name}: is the game over?")
        require(HEX64.fullmatch(fairness[name]) is not None, f"the {name} is not 64 hex digits")
    computers, seeds = log.get("computers"), fairness.get("client_seeds")
    require(isinstance(computers, list), "the log does not say which seats are computers")
    seeds_listed = isinstance(seeds, list) and all(isinstance(seat, dict) for seat in seeds)
    require(seeds_listed, "the client seeds are not a list of seats")
    humans = [seat for seat in range(seats) if seat not in computers]
    require([seat.get("seat") for seat in seeds] == humans, "not one seed per person's seat")
    require(all(isinstance(seat.get("client_seed"), str) for seat in seeds), "a seed is missing")
    turn, in_turn = 0, 0
    for n, roll in enumerate(rolls):
        require(isinstance(roll, dict) and roll.get("n") == n, f"roll {n} is out of sequence")
        new_turn = roll.get("turn") == turn + 1 and n > 0
        require(roll.get("turn") == turn or new_turn, f"roll {n}: turns out of sequence")
        turn, in_turn = (turn + 1, 1) if new_turn else (turn, in_turn + 1)
        require(in_turn <= 3, f"roll {n}: a fourth roll in turn {turn}")
        require(roll.get("seat") == turn % seats, f"roll {n}: not the seat of turn {turn}")
        held, dice = roll.get("held"), roll.get("dice")
        require(isinstance(held, list) and len(held) == 5, f"roll {n}: not five held flags")
        require(all(isinstance(flag, bool) for flag in held), f"roll {n}: a held flag")
        require(in_turn > 1 or not any(held), f"roll {n}: dice held on a turn's first roll")
        require(isinstance(dice, list) and len(dice) == 5, f"roll {n}: not five dice")
        require(all(die in range(1, 7) for die in dice), f"roll {n}: a die that is not 1 to 6")
    if log.get("status") == "finished":
        require(len(rolls) > 0 and turn == 13 * seats - 1, "a finished game without every turn")


def check(
    log: Any, commitment: str | None = None, seeds: dict[int, str] | None = None
) -> list[str]:
    check_structure(log)
    fairness, problems = log["fairness"], []
    seed = bytes.fromhex(fairness["server_seed"])
    if hashlib.sha256(seed).hexdigest() != fairness["commitment"]:
        problems.append("the server seed does not match the commitment")
    if commitment is not None and commitment.lower() != fairness["commitment"]:
        problems.append("the commitment is not the one shown before the first roll")
    given = {seat["seat"]: seat["client_seed"] for seat in fairness["client_seeds"]}
    for seat, own in (seeds or {}).items():
        if given.get(seat) != own:
            problems.append(f"the seed of seat {seat} is not the one it gave")
    before = [0] * 5
    for n, roll in enumerate(log["rolls"]):
        stream = faces(seed, message(log, n))
        kept = zip(before, roll["held"], strict=True)
        dice = [old if held else next(stream) for old, held in kept]
        if dice != roll["dice"]:
            problems.append(f"roll {n} (seat {roll['seat']}): {roll['dice']}, seeds give {dice}")
        before = dice
    return problems


def seat_seed(text: str) -> tuple[int, str]:
    seat, _, seed = text.partition(":")
    return int(seat), seed


if __name__ == "__main__":
    options = argparse.ArgumentParser(description="Check a Penta game's dice from its log.")
    options.add_argument("--commitment", help="the commitment you saw before the first roll")
    options.add_argument("--seed", type=seat_seed, action="append", help="SEAT:SEED you gave")
    arguments = options.parse_args()
    try:
        log = json.load(sys.stdin)
        problems = check(log, arguments.commitment, dict(arguments.seed or []))
    except (ValueError, RecursionError, Malformed) as error:  # bad or too deep JSON too
        print(f"cannot be checked: {error}")
        sys.exit(2)
    print("\n".join(problems) or f"all {len(log['rolls'])} rolls match")
    sys.exit(1 if problems else 0)
