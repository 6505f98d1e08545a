"""A thin, typed wrapper over the ``docker`` command for the image tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

BASE_IMAGE = "python:3.11-slim"
STANDIN_SCRIPT = Path(__file__).with_name("standin_base.sh")


def docker(*arguments: str, check: bool = True, timeout: float = 600) -> str:
    """Run ``docker ARGUMENTS``; its stdout (stderr joined in on failure)."""
    result = subprocess.run(
        ["docker", *arguments], capture_output=True, text=True, timeout=timeout, check=False
    )
    if check and result.returncode != 0:
        raise AssertionError(f"docker {' '.join(arguments)}: {result.stdout}{result.stderr}")
    return result.stdout


def require_engine() -> None:
    """Skip, with the reason, where no Docker engine answers."""
    if shutil.which("docker") is None:
        pytest.skip("no docker command: install docker.io (.ci/run does, as root on Debian)")
    answer = subprocess.run(
        ["docker", "info", "--format", "{{.ServerVersion}}"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if answer.returncode != 0:
        pytest.skip(f"no Docker engine answers: {answer.stderr.strip()[:200]}")


def ensure_base_image() -> None:
    """The Dockerfile's base, or a stand-in made with debootstrap where Docker Hub is out of
    reach (kept in the engine, and as a tarball outside the repository, between runs)."""
    present = subprocess.run(
        ["docker", "image", "inspect", BASE_IMAGE], capture_output=True, check=False
    )
    if present.returncode == 0:
        return
    if shutil.which("debootstrap") is None or os.getuid() != 0:
        pytest.skip(f"no {BASE_IMAGE} in the engine, and no debootstrap run as root to make one")
    result = subprocess.run(
        ["bash", str(STANDIN_SCRIPT), BASE_IMAGE],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stderr


@dataclass
class Container:
    """A running container of the image, its port 8000 published on loopback only."""

    name: str
    url: str

    @classmethod
    def run(cls, image: str, name: str, *options: str) -> Container:
        docker("run", "-d", "--name", name, "-p", "127.0.0.1::8000", *options, image)
        return cls(name, "")

    def published(self) -> Container:
        """With the URL of its published port (once it runs)."""
        address = docker("port", self.name, "8000/tcp").split()[0]
        self.url = f"http://{address}"
        return self

    def state(self) -> dict[str, object]:
        answer: dict[str, object] = json.loads(
            docker("inspect", "--format", "{{json .State}}", self.name)
        )
        return answer

    def wait_healthy(self, timeout: float = 60) -> float:
        """Seconds until Docker reports the container healthy (fails if it exits first)."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            state = self.state()
            if not state["Running"]:
                raise AssertionError(f"{self.name} exited: {self.logs()}")
            health = state.get("Health")
            if isinstance(health, dict) and health.get("Status") == "healthy":
                return time.monotonic() - started
            time.sleep(0.2)
        raise AssertionError(f"{self.name} not healthy after {timeout} s: {self.logs()}")

    def wait_exited(self, timeout: float = 30) -> int:
        """The exit code once the container has stopped by itself."""
        code = docker("wait", self.name, timeout=timeout).strip()
        return int(code)

    def logs(self) -> str:
        result = subprocess.run(
            ["docker", "logs", self.name], capture_output=True, text=True, check=False
        )
        return result.stdout + result.stderr

    def run_inside(self, *command: str) -> str:
        return docker("exec", self.name, *command)

    def memory(self) -> str:
        return docker("stats", "--no-stream", "--format", "{{.MemUsage}}", self.name).strip()

    def remove(self) -> None:
        docker("rm", "-f", "-v", self.name, check=False)
