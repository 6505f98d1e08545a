"""The strategy core imports no web, database, template, clock or randomness code.

``app/strategy/__main__.py`` is left out on purpose: it is the command-line entry point, the
one place that creates the seeded random generator for simulations and reads the clock for
timings, exactly as the web layer does for real games.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import app.strategy

FORBIDDEN = (
    "fastapi",
    "starlette",
    "sqlalchemy",
    "jinja2",
    "random",
    "secrets",
    "time",
    "datetime",
    "app.web",
    "app.store",
    "app.service",
    "app.settings",
)
PACKAGE = Path(app.strategy.__file__).parent
CORE_MODULES = sorted(path for path in PACKAGE.glob("*.py") if path.name != "__main__.py")


def imported_names(source: str) -> list[str]:
    """Every module ``source`` imports (``from app import web`` counts as ``app.web``), and
    ``numpy.random`` when reached as an attribute of numpy."""
    names: list[str] = []
    numpy_aliases = {"numpy"}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names.append(alias.name)
                if alias.name == "numpy":
                    numpy_aliases.add(alias.asname or "numpy")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            names.append(base)
            names.extend(f"{base}.{alias.name}" for alias in node.names)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in numpy_aliases
            and node.attr == "random"
        ):
            names.append("random")
    return names


def forbidden_imports(source: str) -> list[str]:
    """The entries of :data:`FORBIDDEN` that ``source`` imports."""
    return sorted(
        {
            banned
            for name in imported_names(source)
            for banned in FORBIDDEN
            if name == banned or name.startswith(banned + ".")
        }
    )


def test_core_modules_are_found() -> None:
    names = {path.name for path in CORE_MODULES}
    assert {"__init__.py", "strategy.py", "turn.py", "tables.py", "provider.py"} <= names


@pytest.mark.parametrize("path", CORE_MODULES, ids=lambda path: path.name)
def test_core_imports_nothing_impure(path: Path) -> None:
    assert forbidden_imports(path.read_text()) == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import random", ["random"]),
        ("from time import perf_counter", ["time"]),
        ("import datetime as dt", ["datetime"]),
        ("from app import web", ["app.web"]),
        ("from app.store.games import load", ["app.store"]),
        ("from app import settings, rules", ["app.settings"]),
        ("import numpy as np\nnp.random.default_rng()", ["random"]),
        ("from fastapi import FastAPI", ["fastapi"]),
        ("import secrets", ["secrets"]),
    ],
)
def test_the_checker_finds_impure_imports(source: str, found: list[str]) -> None:
    assert forbidden_imports(source) == found


def test_the_checker_accepts_the_cores_own_imports() -> None:
    source = "import numpy as np\nfrom app.rules import Box\nimport threading\nnp.zeros(3)"
    assert forbidden_imports(source) == []
