"""Vendored assets are exactly the files of their pinned npm packages, and are served."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from fastapi.testclient import TestClient

VENDOR = Path(__file__).resolve().parents[2] / "static" / "vendor"


def test_vendored_files_match_the_recorded_hashes() -> None:
    table = (VENDOR / "README.md").read_text()
    rows = re.findall(r"^\| `([^`]+)` \|.*\| `([0-9a-f]{64})` \|$", table, flags=re.MULTILINE)
    assert len(rows) == 8
    for name, digest in rows:
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest, name


def test_pages_load_htmx_from_this_server(client: TestClient) -> None:
    page = client.get("/").text
    assert '<script src="/static/vendor/htmx-2.0.11.min.js" defer></script>' in page
    assert "https://" not in page
    script = client.get("/static/vendor/htmx-2.0.11.min.js")
    assert script.status_code == 200
    assert 'version:"2.0.11"' in script.text


def test_static_holds_only_what_browsers_load() -> None:
    """Everything under static/ is served as it is: no script or source of the project's own."""
    kinds = {path.suffix or path.name for path in VENDOR.parent.rglob("*") if path.is_file()}
    licences = {path.name for path in VENDOR.rglob("*-LICENSE")}
    assert kinds - licences == {".css", ".js", ".svg", ".png", ".woff2", ".md"}
