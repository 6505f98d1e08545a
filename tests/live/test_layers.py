"""The live path sits between the web and the service (web → live → service): the service
imports nothing of the live path or the web, and the live path nothing of the web."""

from __future__ import annotations

from pathlib import Path

from tests.service.test_service_imports import imported_modules

APP = Path(__file__).resolve().parents[2] / "app"


def imports_of(folder: str, prefixes: tuple[str, ...]) -> dict[str, list[str]]:
    """Each module under ``app/<folder>`` that imports a module under one of ``prefixes``."""
    modules = sorted((APP / folder).rglob("*.py"))
    assert len(modules) > 5, f"the modules of app/{folder} were found"
    found = {
        path.relative_to(APP).as_posix(): sorted(
            module for module in imported_modules(path.read_text()) if module.startswith(prefixes)
        )
        for path in modules
    }
    return {path: modules for path, modules in found.items() if modules}


def test_the_service_imports_nothing_of_the_live_path_or_the_web() -> None:
    assert imports_of("service", ("app.live", "app.web")) == {}


def test_the_live_path_imports_nothing_of_the_web() -> None:
    assert imports_of("live", ("app.web",)) == {}


def test_the_broker_the_presence_and_the_buses_are_in_the_live_path() -> None:
    for module in ("broker.py", "presence.py", "bus/local.py", "bus/redis_bus.py"):
        assert (APP / "live" / module).is_file(), module
