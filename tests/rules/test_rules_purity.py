"""The rules import only pure standard-library modules and themselves; their doctests pass."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

import app.rules

RULES_PACKAGE = "app.rules"

PURE_STANDARD_MODULES = frozenset(
    {
        "__future__",
        "abc",
        "collections",
        "collections.abc",
        "dataclasses",
        "enum",
        "functools",
        "itertools",
        "math",
        "operator",
        "types",
        "typing",
    }
)
"""No clock, randomness, files, network or environment: the rules must replay exactly."""


def is_allowed(module: str) -> bool:
    """Whether ``module`` is a pure standard module or part of the rules."""
    is_rules = module == RULES_PACKAGE or module.startswith(RULES_PACKAGE + ".")
    return is_rules or module in PURE_STANDARD_MODULES


def forbidden_imports(source: str, module: str, *, is_package: bool = False) -> list[str]:
    """The modules ``source`` (the text of ``module``) imports that the rules may not use.

    Relative imports are resolved against ``module``; ``from app import web`` counts as
    importing ``app.web``; any dynamic import (``__import__``, ``importlib``) is refused.
    """
    package = module if is_package else module.rpartition(".")[0]
    imported: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            target = ".".join(part for part in (base, node.module) if part)
            if RULES_PACKAGE.startswith(target + "."):  # an ancestor: its names are modules
                imported.extend(f"{target}.{alias.name}" for alias in node.names)
            else:
                imported.append(target)
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in (
            "__import__",
            "importlib.import_module",
        ):
            imported.append("__import__")
    return [name for name in imported if not is_allowed(name)]


def rules_modules() -> list[tuple[str, Path, bool]]:
    package_dir = Path(app.rules.__file__).parent
    modules = [(RULES_PACKAGE, package_dir / "__init__.py", True)]
    for info in pkgutil.walk_packages([str(package_dir)], prefix=RULES_PACKAGE + "."):
        path = package_dir.joinpath(*info.name.split(".")[2:])
        if info.ispkg:
            modules.append((info.name, path / "__init__.py", True))
        else:
            modules.append((info.name, path.with_suffix(".py"), False))
    return modules


def test_rules_modules_are_found() -> None:
    names = {name for name, _, _ in rules_modules()}
    assert names == {
        "app.rules",
        "app.rules.boxes",
        "app.rules.dice",
        "app.rules.errors",
        "app.rules.game",
        "app.rules.refusals",
        "app.rules.sheet",
    }


@pytest.mark.parametrize(
    ("module", "path", "is_package"), rules_modules(), ids=[m for m, _, _ in rules_modules()]
)
def test_rules_import_only_pure_modules(module: str, path: Path, is_package: bool) -> None:
    assert forbidden_imports(path.read_text(), module, is_package=is_package) == []


@pytest.mark.parametrize(
    ("source", "forbidden"),
    [
        ("import random", ["random"]),
        ("import os.path", ["os.path"]),
        ("from time import monotonic", ["time"]),
        ("from datetime import datetime", ["datetime"]),
        ("import secrets, socket", ["secrets", "socket"]),
        ("from pathlib import Path", ["pathlib"]),
        ("import numpy as np", ["numpy"]),
        ("from fastapi import FastAPI", ["fastapi"]),
        ("from starlette.requests import Request", ["starlette.requests"]),
        ("import sqlalchemy", ["sqlalchemy"]),
        ("import jinja2", ["jinja2"]),
        ("from app.web import routes", ["app.web"]),
        ("from app.store.games import load", ["app.store.games"]),
        ("from app import service", ["app.service"]),
        ("from app import strategy, rules", ["app.strategy"]),
        ("from .. import web", ["app.web"]),
        ("from ..strategy import solver", ["app.strategy"]),
        ("from app.rulesets import extra", ["app.rulesets"]),
        ("import collections.abc, collectionsx", ["collectionsx"]),
        ("def f():\n    import random\n", ["random"]),
        ("mod = __import__('random')", ["__import__"]),
        ("import importlib\nimportlib.import_module('random')", ["importlib", "__import__"]),
    ],
)
def test_import_checker_rejects_impure_imports(source: str, forbidden: list[str]) -> None:
    assert forbidden_imports(source, "app.rules.dice") == forbidden


@pytest.mark.parametrize(
    "source",
    [
        "from __future__ import annotations",
        "from collections.abc import Iterable, Sequence",
        "from dataclasses import dataclass, field",
        "from enum import StrEnum",
        "import itertools",
        "from app.rules.boxes import Box",
        "from app.rules import dice",
        "from . import boxes",
        "from .sheet import Scoresheet",
    ],
)
def test_import_checker_accepts_pure_imports(source: str) -> None:
    assert forbidden_imports(source, "app.rules.dice") == []


def test_import_checker_resolves_relative_imports_of_a_package() -> None:
    assert forbidden_imports("from . import game", "app.rules", is_package=True) == []
    assert forbidden_imports("from .. import web", "app.rules", is_package=True) == ["app.web"]


def rules_module_objects() -> list[ModuleType]:
    return [importlib.import_module(name) for name, _, _ in rules_modules()]


@pytest.mark.parametrize("module", rules_module_objects(), ids=lambda module: module.__name__)
def test_doctests(module: ModuleType) -> None:
    failures, attempted = doctest.testmod(module, report=True)

    assert attempted > 0, f"{module.__name__} has no doctest"
    assert failures == 0
