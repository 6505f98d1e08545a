"""The Dockerfile is hadolint-clean and keeps the promises the README makes about the image."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"


def _hadolint() -> str:
    found = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    if not Path(found).exists():
        pytest.fail("hadolint is missing: `make test` installs it with the dev dependencies")
    return found


def test_hadolint_finds_nothing() -> None:
    result = subprocess.run(
        [_hadolint(), "--no-color", str(DOCKERFILE)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def _instructions() -> list[tuple[str, str]]:
    lines = DOCKERFILE.read_text().replace("\\\n", " ").splitlines()
    pairs = []
    for line in lines:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            keyword, _, rest = stripped.partition(" ")
            pairs.append((keyword.upper(), rest.strip()))
    return pairs


def test_the_image_runs_as_a_non_root_user_with_a_data_volume_and_a_healthcheck() -> None:
    instructions = _instructions()
    keywords = [keyword for keyword, _ in instructions]
    assert instructions[0][0] == "FROM"
    bases = [rest.split()[0] for keyword, rest in instructions if keyword == "FROM"]
    assert bases == ["python:3.11-slim", "python:3.11-slim"], "a build stage, then the image"
    user = [rest for keyword, rest in instructions if keyword == "USER"]
    assert user
    assert user[-1] not in ("root", "0", "0:0")
    assert ("VOLUME", "/data") in instructions
    last_stage = max(i for i, (keyword, _) in enumerate(instructions) if keyword == "FROM")
    image = instructions[last_stage:]
    assert not [rest for _, rest in image if "/opt/uv" in rest], "uv stays in the build stage"
    healthcheck = next(rest for keyword, rest in instructions if keyword == "HEALTHCHECK")
    assert "/healthz" in healthcheck
    cmd = next(rest for keyword, rest in instructions if keyword == "CMD")
    assert json.loads(cmd)[:2] == ["penta", "serve"]
    assert keywords.count("CMD") == 1


def test_the_strategy_build_step_of_the_image_runs(tmp_path: Path) -> None:
    """The image prebuilds the strategy table with this very command; run it for real."""
    text = DOCKERFILE.read_text()
    match = re.search(r"python -m app\.strategy build --path (\S+)", text)
    assert match, "the Dockerfile builds the strategy table"
    assert f"PENTA_STRATEGY_TABLE={match.group(1)}" in text
    target = tmp_path / "strategy"
    result = subprocess.run(
        [sys.executable, "-m", "app.strategy", "build", "--path", str(target)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    assert "V(empty sheet) = 254.484846" in result.stdout
    assert len(list(target.glob("strategy-*.npz"))) == 1
