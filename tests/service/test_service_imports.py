"""The service reaches the database only through the store's door: it imports no SQLAlchemy."""

from __future__ import annotations

import ast
from pathlib import Path

SERVICE = Path(__file__).resolve().parents[2] / "app" / "service"
FORBIDDEN = "sqlalchemy"


def imported_modules(source: str) -> set[str]:
    """Every module that ``source`` imports, by its absolute name (relative ones as written)."""
    modules: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
    return modules


def test_the_check_sees_an_import_of_sqlalchemy_in_any_form() -> None:
    for source in (
        "import sqlalchemy",
        "from sqlalchemy import select",
        "from sqlalchemy.orm import Session",
        "def f():\n    import sqlalchemy.engine as engine\n",
    ):
        assert any(module.split(".")[0] == FORBIDDEN for module in imported_modules(source)), source


def test_no_service_module_imports_sqlalchemy() -> None:
    modules = sorted(SERVICE.rglob("*.py"))
    assert len(modules) > 10, "the service's modules were found"
    offenders = {
        path.relative_to(SERVICE).as_posix(): sorted(
            module
            for module in imported_modules(path.read_text())
            if module.split(".")[0] == FORBIDDEN
        )
        for path in modules
    }
    assert {path: found for path, found in offenders.items() if found} == {}
