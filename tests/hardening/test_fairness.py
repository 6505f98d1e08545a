"""Fairness: the dice come from the operating system's CSPRNG and are uniform.

A chi-square test over 60,000 dice from ``SecureDice`` passes at p = 0.0001 (a false alarm
once in ten thousand runs; a die only 1 % heavy on one face scores about 43 and fails), both
for the verifiable dice of a game with a server seed (HMAC-SHA256 of the seed, see
docs/fairness.md) and for the CSPRNG's own, which games from before that scheme still roll.
Production settings cannot choose the scripted dice, and both roll paths of the web layer
take their dice from the service's one source.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from app.rules import DICE_COUNT, FACES
from app.service.dice import RollSeeds, ScriptedDice, SecureDice, roll
from app.settings import ROOT, Settings
from app.web.factory import create_app
from tests.hardening.conftest import HTMX, csrf_token

SAMPLE = 60_000
CRITICAL_5_DF_P_0001 = 25.745
"""The chi-square value that 5 degrees of freedom exceed with probability 0.0001."""


def chi_square(counts: Counter[int], total: int) -> float:
    expected = total / len(FACES)
    return sum((counts[face] - expected) ** 2 / expected for face in FACES)


def test_the_verifiable_dice_of_a_game_are_uniform_by_chi_square() -> None:
    """12,000 whole rolls of one game, each dealt from the game's seed and its number."""
    dice = SecureDice()
    server_seed = dice.new_server_seed()
    counts: Counter[int] = Counter()
    for number in range(SAMPLE // DICE_COUNT):
        seeds = RollSeeds(server_seed, "chi-game", number, ((0, "3f9a0c"), (1, "b71d2e")))
        counts.update(roll(dice, None, (False,) * DICE_COUNT, seeds))
    assert counts.total() == SAMPLE
    assert set(counts) == set(FACES)
    statistic = chi_square(counts, SAMPLE)
    print(f"chi-square over {SAMPLE} verifiable dice: {statistic:.2f}")
    assert statistic < CRITICAL_5_DF_P_0001


def test_the_dice_of_games_without_a_seed_are_uniform_by_chi_square() -> None:
    stream = SecureDice().faces(None)
    counts = Counter(next(stream) for _ in range(SAMPLE))
    assert set(counts) == set(FACES)
    statistic = chi_square(counts, SAMPLE)
    print(f"chi-square over {SAMPLE} dice: {statistic:.2f} (critical {CRITICAL_5_DF_P_0001})")
    assert statistic < CRITICAL_5_DF_P_0001


def test_the_test_would_catch_a_die_one_percent_heavy() -> None:
    """The same statistic on the expected counts of a slightly loaded die."""
    loaded = Counter({face: SAMPLE * (1 / 6 - 0.002) for face in range(1, 6)})
    loaded[6] = SAMPLE * (1 / 6 + 0.01)
    assert chi_square(loaded, SAMPLE) > CRITICAL_5_DF_P_0001


def test_production_settings_cannot_choose_scripted_dice(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, strategy_table: Path
) -> None:
    with pytest.raises(ValidationError, match="PENTA_DICE_SCRIPT is for tests only"):
        Settings(dice_script="6,6,6,6,6")
    monkeypatch.setenv("PENTA_DICE_SCRIPT", "6")
    monkeypatch.delenv("PENTA_TESTING", raising=False)
    with pytest.raises(ValidationError, match="PENTA_DICE_SCRIPT is for tests only"):
        Settings()
    monkeypatch.delenv("PENTA_DICE_SCRIPT")
    production = Settings(data_dir=tmp_path, strategy_table=strategy_table)
    assert type(create_app(production).state.service.dice) is SecureDice


def _imported_modules(source: str) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
    return modules


def test_only_the_factory_can_make_scripted_dice_and_nothing_uses_random() -> None:
    makers = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        source = path.read_text()
        if "ScriptedDice" in source and path.name != "dice.py":
            makers.append(path.relative_to(ROOT).as_posix())
        assert "random" not in _imported_modules(source), path
    assert makers == ["app/web/factory.py"]
    assert re.search(r"secrets\.randbelow", (ROOT / "app/service/dice.py").read_text())


class Recording:
    """A dice source that deals 1 to 6 in turn and remembers what it dealt."""

    def __init__(self) -> None:
        self.dealt: list[int] = []

    def new_server_seed(self) -> None:
        return None

    def faces(self, seeds: RollSeeds | None) -> Iterator[int]:
        return iter(self._deal, 0)

    def _deal(self) -> int:
        self.dealt.append(len(self.dealt) % 6 + 1)
        return self.dealt[-1]


def test_both_roll_paths_take_the_services_dice(make_client: Callable[..., TestClient]) -> None:
    client = make_client()
    source = Recording()
    client.app.state.service.dice = source  # type: ignore[attr-defined]
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id, auth = created["game"]["id"], {"Authorization": f"Bearer {created['token']}"}
    client.post(f"/api/v1/games/{game_id}/start", headers=auth)
    rolled = client.post(f"/api/v1/games/{game_id}/roll", json={"hold": []}, headers=auth)
    assert rolled.json()["dice"] == source.dealt == [1, 2, 3, 4, 5]

    page = client.post(
        "/games",
        data={"name": "Bo", "mode": "solo", "csrf_token": csrf_token(client)},  # type: ignore[arg-type]
        follow_redirects=False,
    )
    page_game = page.headers["location"].removeprefix("/games/")
    answer = client.post(
        f"/games/{page_game}/roll",
        data={"turn": "0", "roll": "0"},
        headers={**HTMX, "X-CSRF-Token": csrf_token(client)},  # type: ignore[arg-type]
    )
    assert answer.status_code == 200
    assert source.dealt[5:] == [6, 1, 2, 3, 4]
    assert client.get(f"/api/v1/games/{page_game}").json()["dice"] == [6, 1, 2, 3, 4]


def test_scripted_dice_refuse_values_that_are_not_faces() -> None:
    with pytest.raises(ValueError, match="values 1 to 6"):
        ScriptedDice([0, 7])
