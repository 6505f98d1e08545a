"""The image, built from the project's own Dockerfile and run for real.

Marked ``docker``: skipped, with the reason, where no engine answers. Where Docker Hub is out of
reach, the base image is a stand-in made by ``standin_base.sh`` (Debian bookworm's Python 3.11,
the version CI tests). The figures an operator cares about (cold build, rebuild after a
one-line change, image size, time to healthy, memory, first advice) are printed at the end.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app import __version__
from tests.docker.conftest import FIGURES
from tests.docker.engine import Container, docker, ensure_base_image, require_engine

pytestmark = [pytest.mark.docker, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
IMAGE = f"penta-test:{uuid.uuid4().hex[:8]}"
"""A tag of this run's own: two runs on one engine never remove each other's image."""
COLD_IMAGE = f"{IMAGE}-cold"
PENTA_UID = 10001
_NOT_CONTEXT = shutil.ignore_patterns(
    ".git", ".venv", "data", "__pycache__", "*.mo", ".*_cache", ".hypothesis", "artifacts"
)

Report = Callable[[str, str], None]


@pytest.fixture(scope="module")
def report() -> Report:
    """Record a figure; they are printed after the run (``conftest.py``)."""
    return lambda name, value: FIGURES.append((name, value))


def _build(context: Path, tag: str, *options: str) -> tuple[float, str]:
    started = time.monotonic()
    output = docker("build", *options, "-t", tag, str(context), timeout=1200)
    return time.monotonic() - started, output


def _step_used_cache(output: str, instruction: str) -> bool:
    """Whether the legacy builder's step running ``instruction`` came from the cache."""
    step = output.split(instruction, 1)[1]
    return step.split("\nStep ", 1)[0].find("Using cache") != -1


@pytest.fixture(scope="module")
def image(report: Report, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The image, built cold (the base aside), then again after a one-line code change.
    Both are removed afterwards: a cold build each run would otherwise pile up on the disk."""
    require_engine()
    ensure_base_image()
    try:
        cold, output = _build(ROOT, COLD_IMAGE, "--no-cache")
        report("cold build (base image cached)", f"{cold:.1f} s")
        warnings = [line for line in output.splitlines() if "warn" in line.lower()]
        assert warnings == [], "the build warns"
        changed = tmp_path_factory.mktemp("context") / "penta"
        shutil.copytree(ROOT, changed, ignore=_NOT_CONTEXT)
        with (changed / "app" / "web" / "pages.py").open("a") as source:
            source.write("# a one-line change\n")
        again, output = _build(changed, IMAGE)
        report("rebuild after a one-line code change", f"{again:.1f} s")
        # The dependencies and the strategy table come from the cache: only the code is redone.
        assert _step_used_cache(output, "uv sync --frozen --no-dev --no-install-project")
        assert _step_used_cache(output, "python -m app.strategy build")
        # …and the image takes them over unchanged: a deploy ships the code's layer only.
        assert _step_used_cache(output, "COPY --from=build /opt/venv /opt/venv")
        assert _step_used_cache(output, "COPY --from=build /opt/strategy /opt/strategy")
        assert not _step_used_cache(output, "COPY app/ app/")
        # uv and pip's work stay in the build stage: the image holds their results only.
        assert docker("run", "--rm", "--entrypoint", "ls", IMAGE, "/opt").split() == [
            "strategy",
            "venv",
        ]
        size = int(docker("image", "inspect", "--format", "{{.Size}}", IMAGE))
        report("image size", f"{size / 1e6:.0f} MB")
        yield IMAGE
    finally:
        # By tag, not by id: layers go only when no other tag (another run's, say) holds them.
        docker("image", "rm", IMAGE, COLD_IMAGE, check=False)


@pytest.fixture
def containers() -> Iterator[Callable[..., Container]]:
    started: list[Container] = []
    volumes: list[str] = []

    def start(*options: str, volume: str | None = None) -> Container:
        if volume is not None:
            volumes.append(volume)
            options = ("-v", f"{volume}:/data", *options)
        container = Container.run(IMAGE, f"penta-test-{uuid.uuid4().hex[:8]}", *options)
        started.append(container)
        return container

    yield start
    for container in started:
        container.remove()
    for volume in volumes:
        docker("volume", "rm", "-f", volume, check=False)


def _play_a_solo_game(url: str) -> tuple[str, dict[str, Any], float]:
    """Create, start and play a whole game through the API: its id, final JSON and the
    milliseconds the first advice took."""
    with httpx.Client(base_url=url, timeout=10) as client:
        created = client.post("/api/v1/games", json={"name": "Ann"})
        assert created.status_code == 201, created.text
        game_id, token = created.json()["game"]["id"], created.json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        assert client.post(f"/api/v1/games/{game_id}/start", headers=headers).status_code == 200
        first_advice = 0.0
        game: dict[str, Any] = {}
        for turn in range(13):
            for _ in range(3):
                rolled = client.post(
                    f"/api/v1/games/{game_id}/roll", json={"hold": []}, headers=headers
                )
                assert rolled.status_code == 200, rolled.text
                if turn == 0 and not first_advice:
                    started = time.perf_counter()
                    advice = client.get(f"/api/v1/games/{game_id}/advice", headers=headers)
                    first_advice = (time.perf_counter() - started) * 1000
                    assert advice.status_code == 200, advice.text
            scored = client.post(f"/api/v1/games/{game_id}/auto", headers=headers)
            assert scored.status_code == 200, scored.text
            game = scored.json()
    assert game["status"] == "finished"
    return game_id, game, first_advice


def test_a_game_played_on_a_named_volume_survives_a_container_swap(
    image: str, containers: Callable[..., Container], report: Report
) -> None:
    volume = f"penta-test-{uuid.uuid4().hex[:8]}"
    first = containers(volume=volume)
    report("time to healthy", f"{first.wait_healthy():.1f} s")
    first.published()
    health = httpx.get(f"{first.url}/healthz").json()
    assert health["version"] == __version__
    assert health["strategy_ready"] is True  # the prebuilt table, loaded at start-up
    game_id, finished, advice_ms = _play_a_solo_game(first.url)
    report("first advice", f"{advice_ms:.0f} ms")
    report("memory after one game", first.memory())

    assert first.run_inside("id", "-u").strip() == str(PENTA_UID)
    version = first.run_inside("penta", "version")
    assert version.startswith(f"penta {__version__} (Python 3.11.")
    logs = first.logs()
    assert "strategy table loaded from /opt/strategy/strategy-" in logs
    assert "Application startup complete." in logs
    assert "Traceback" not in logs
    assert '"GET /healthz HTTP/1.1" 200' in logs  # this test's, through the published port
    assert "127.0.0.1:" not in logs  # the health checks, from inside, are left out
    backed_up = first.run_inside("penta", "backup", "/data/backup.db")
    assert backed_up.startswith("backed up 1 game to /data/backup.db (")

    docker("stop", first.name)
    # The README's restore, as a one-off container on the stopped server's volume.
    restored = docker(
        "run", "--rm", "-v", f"{volume}:/data", image, "penta", "restore", "/data/backup.db"
    )
    assert restored == "restored 1 game from /data/backup.db into /data/penta.db\n"
    second = containers(volume=volume)
    second.wait_healthy()
    second.published()
    found = httpx.get(f"{second.url}/api/v1/games/{game_id}").json()
    assert found["status"] == "finished"
    assert [p["total"] for p in found["players"]] == [p["total"] for p in finished["players"]]


def test_a_bind_mount_owned_by_the_penta_user_holds_the_database_on_the_host(
    image: str, containers: Callable[..., Container], tmp_path: Path
) -> None:
    if os.getuid() != 0:
        pytest.skip("giving a folder to uid 10001 needs root")
    folder = tmp_path / "srv-penta"
    folder.mkdir()
    os.chown(folder, PENTA_UID, PENTA_UID)
    container = containers("-v", f"{folder}:/data")
    container.wait_healthy()
    _play_a_solo_game(container.published().url)
    database = folder / "penta.db"
    assert database.stat().st_uid == PENTA_UID
    assert (folder / "secret_key").stat().st_mode & 0o077 == 0


def test_a_root_owned_bind_mount_stops_the_container_with_one_line_saying_what_to_do(
    image: str, containers: Callable[..., Container], tmp_path: Path
) -> None:
    folder = tmp_path / "root-owned"
    folder.mkdir(mode=0o755)  # the current user's (root in CI): not writable by uid 10001
    container = containers("-v", f"{folder}:/data")
    assert container.wait_exited() == 1
    lines = [line for line in container.logs().splitlines() if line.strip()]
    assert lines == [
        f"penta: cannot write to the data folder /data (Permission denied, owned by uid "
        f"{os.getuid()}; Penta runs as uid {PENTA_UID}): make it writable for uid {PENTA_UID}, "
        f"e.g. `chown -R {PENTA_UID}:{PENTA_UID} FOLDER` on the host for a Docker bind "
        "mount, or use a named volume (-v penta-data:/data)"
    ]


def test_a_bad_setting_stops_the_container_with_one_line(
    image: str, containers: Callable[..., Container]
) -> None:
    container = containers("-e", "PENTA_RATE_LIMIT_PER_MINUTE=lots")
    assert container.wait_exited() == 1
    assert container.logs() == (
        "penta: bad setting PENTA_RATE_LIMIT_PER_MINUTE='lots': Input should be a valid "
        "integer, unable to parse string as an integer (fix it or unset it for the default)\n"
    )
