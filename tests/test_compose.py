"""compose.yaml keeps the README's promises: the same volume as `docker run`, loopback by
default, and a build on every `up` so that an update runs the new code."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent


def _compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
    return loaded


def test_compose_names_the_volume_of_the_readme_docker_run() -> None:
    compose = _compose()
    readme = (ROOT / "README.md").read_text()
    runs = re.findall(r"docker run [^\n]*-v (\S+):/data", readme)
    assert runs
    assert {volume for volume in runs} == {"penta-data"}
    assert compose["services"]["penta"]["volumes"] == ["penta-data:/data"]
    assert compose["volumes"]["penta-data"]["name"] == "penta-data"


def test_compose_listens_on_loopback_unless_told_otherwise() -> None:
    (port,) = _compose()["services"]["penta"]["ports"]
    assert port == "${PENTA_LISTEN:-127.0.0.1:8000}:8000"


def test_compose_builds_on_every_up() -> None:
    service = _compose()["services"]["penta"]
    assert service["build"] == "."
    assert service["pull_policy"] == "build"
