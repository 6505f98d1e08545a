"""The scheme's formulas: their doctests, a roll computed by hand from the HMAC, and only the
standard library in what a verifier has to read."""

from __future__ import annotations

import ast
import doctest
import hashlib
import hmac
import importlib
import sys
from types import ModuleType

import pytest

from app import fairness
from app.fairness import faces, roll_message
from app.rules import FACES
from app.service.dice import RollSeeds, SecureDice, roll
from app.settings import ROOT

MODULES = [fairness, importlib.import_module("app.fairness.__main__")]


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.__name__)
def test_doctests(module: ModuleType) -> None:
    failures, attempted = doctest.testmod(module, report=True)
    assert (failures, attempted > 0) == (0, True)


def test_a_roll_follows_the_hmac_bytes_skipping_those_from_252() -> None:
    """Seed 32 zero bytes, game "g", no client seeds: the message of roll 0 is "2:g:0:"
    (scheme 2; "g:0:" in scheme 1)."""
    seed = bytes(32)
    digest = hmac.new(seed, b"2:g:0::0", hashlib.sha256).digest()
    expected = [byte % 6 + 1 for byte in digest if byte < 252]
    assert roll_message("g", 0, []) == "2:g:0:"
    assert roll_message("g", 0, [], scheme=1) == "g:0:"
    stream = faces(seed, "2:g:0:")
    assert [next(stream) for _ in range(len(expected))] == expected
    assert all(next(stream) in FACES for _ in range(100))  # and on into block k = 1, 2, …


def test_the_stream_skips_bytes_from_252_and_goes_on_into_the_next_block() -> None:
    """A seed whose first block has a byte from 252 up keeps fewer than 32 faces from it,
    then the next block's bytes follow."""
    for number in range(10_000):
        seed = number.to_bytes(32, "big")
        first = hmac.new(seed, b"g:0::0", hashlib.sha256).digest()
        second = hmac.new(seed, b"g:0::1", hashlib.sha256).digest()
        if max(first) >= 252 and second[0] < 252:
            break
    kept = [byte % 6 + 1 for byte in first if byte < 252]
    assert len(kept) < 32
    stream = faces(seed, "g:0:")
    assert [next(stream) for _ in range(len(kept) + 1)] == [*kept, second[0] % 6 + 1]


def test_held_dice_keep_their_values_and_the_faces_fill_the_others_in_order() -> None:
    seeds = RollSeeds(bytes(32), "g1", 0, ((0, "ab"),))
    stream = faces(bytes(32), "2:g1:0:0=6162")
    first_faces = [next(stream) for _ in range(3)]
    dice = roll(SecureDice(), (6, 6, 6, 6, 6), (True, False, True, False, False), seeds)
    assert dice == (6, first_faces[0], 6, first_faces[1], first_faces[2])


def test_scheme_2_tells_apart_the_seeds_scheme_1_ran_together() -> None:
    merged, apart = [(0, "ann:bob")], [(0, "ann"), (1, "bob")]
    assert roll_message("g", 0, merged, scheme=1) == roll_message("g", 0, apart, scheme=1)
    assert roll_message("g", 0, merged) != roll_message("g", 0, apart)
    assert roll_message("g", 0, [(1, "ann")]) != roll_message("g", 0, [(0, "ann")])
    with pytest.raises(ValueError, match="no dice scheme 3"):
        roll_message("g", 0, apart, scheme=3)


def _imports(path: str) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse((ROOT / path).read_text())):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module.split(".")[0])
    return modules


@pytest.mark.parametrize("path", ["app/fairness/__init__.py", "app/fairness/verifier.py"])
def test_the_scheme_and_the_verifier_need_only_the_standard_library(path: str) -> None:
    assert _imports(path) <= set(sys.stdlib_module_names) | {"__future__"}
