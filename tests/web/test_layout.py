"""The web layer's layout, read from its imports: no route module imports another route
module, plumbing imports no route, and routes never reach past the service to the database."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import app.web

WEB = Path(app.web.__file__).parent
ROUTES = sorted((WEB / "routes").glob("*.py"))
ROUTES_PACKAGE = "app.web.routes"
OUTSIDE_ROUTES = sorted(path for path in WEB.rglob("*.py") if path.parent.name != "routes")


def imported_modules(source: str) -> list[str]:
    """Every module ``source`` imports; ``from app.web.routes import api`` counts as
    ``app.web.routes.api``, a relative import as the package it names."""
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                names.append("." * node.level + (node.module or ""))
                continue
            base = node.module or ""
            names.append(base)
            names.extend(f"{base}.{alias.name}" for alias in node.names)
    return names


def route_imports(source: str) -> list[str]:
    """The route modules (or the routes package) that ``source`` imports."""
    return sorted(
        {
            name
            for name in imported_modules(source)
            if name == ROUTES_PACKAGE or name.startswith(ROUTES_PACKAGE + ".") or name[:1] == "."
        }
    )


def database_reads(source: str) -> list[str]:
    """Attribute reads of ``.database`` (the service's database handed down a layer)."""
    return [
        ast.unparse(node)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and node.attr == "database"
    ]


def test_the_route_modules_are_found() -> None:
    names = {path.stem for path in ROUTES}
    assert {"api", "pages", "lobby", "table", "review", "stats", "events"} <= names
    assert {"shared", "factory", "deps"} <= {path.stem for path in OUTSIDE_ROUTES}


@pytest.mark.parametrize("path", ROUTES, ids=lambda path: path.stem)
def test_no_route_module_imports_another(path: Path) -> None:
    assert route_imports(path.read_text()) == []


@pytest.mark.parametrize("path", ROUTES, ids=lambda path: path.stem)
def test_routes_ask_the_service_not_its_database(path: Path) -> None:
    assert database_reads(path.read_text()) == []


@pytest.mark.parametrize(
    "path",
    [path for path in OUTSIDE_ROUTES if path.name != "factory.py"],
    ids=lambda path: str(path.relative_to(WEB)),
)
def test_only_the_factory_imports_routes(path: Path) -> None:
    assert route_imports(path.read_text()) == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        (
            "from app.web.routes.pages import page_context",
            ["app.web.routes.pages", "app.web.routes.pages.page_context"],
        ),
        ("from app.web.routes import api", ["app.web.routes", "app.web.routes.api"]),
        ("import app.web.routes.events", ["app.web.routes.events"]),
        ("from .pages import BoardDep", [".pages"]),
        ("from app.web.shared import page_context\nfrom app.web.deps import ServiceDep", []),
    ],
)
def test_the_checker_finds_route_imports(source: str, found: list[str]) -> None:
    assert route_imports(source) == found


def test_the_checker_finds_database_reads() -> None:
    source = "game_review(service.database, service.strategy, game_id)\nservice.review(game_id)"
    assert database_reads(source) == ["service.database"]
