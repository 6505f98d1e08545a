"""Pure analysis (reviews, advice) imports the rules and the strategy only: no web, database,
template, clock or randomness code, by the strategy's own checker, and no other app layer."""

from __future__ import annotations

from pathlib import Path

import pytest

import app.analysis
from tests.strategy.test_strategy_purity import forbidden_imports, imported_names

PACKAGE = Path(app.analysis.__file__).parent
MODULES = sorted(PACKAGE.glob("*.py"))
ALLOWED_APP_PACKAGES = ("app.rules", "app.strategy", "app.analysis")


def app_layers_outside_the_core(source: str) -> list[str]:
    """The ``app`` modules ``source`` imports beyond the rules, the strategy and itself."""
    return sorted(
        {
            name
            for name in imported_names(source)
            if (name == "app" or name.startswith("app."))
            and not any(
                name == allowed or name.startswith(allowed + ".")
                for allowed in ALLOWED_APP_PACKAGES
            )
        }
    )


def test_the_analysis_modules_are_found() -> None:
    assert {"__init__.py", "review.py", "advice.py"} <= {path.name for path in MODULES}


@pytest.mark.parametrize("path", MODULES, ids=lambda path: path.name)
def test_analysis_imports_nothing_impure(path: Path) -> None:
    source = path.read_text()
    assert forbidden_imports(source) == []
    assert app_layers_outside_the_core(source) == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        (
            "from app.service.games import GameService",
            ["app.service.games", "app.service.games.GameService"],
        ),
        ("from app import settings", ["app", "app.settings"]),
        ("from app.rules import Box\nfrom app.strategy import Strategy", []),
        ("from app.analysis.review import review", []),
    ],
)
def test_the_checker_finds_other_layers(source: str, found: list[str]) -> None:
    assert app_layers_outside_the_core(source) == found
