"""Vendored assets are exactly the files of their pinned npm packages, and are served."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from fastapi.testclient import TestClient

from app.web.assets import ASSETS, Assets

VENDOR = Path(__file__).resolve().parents[2] / "static" / "vendor"


def test_vendored_files_match_the_recorded_hashes() -> None:
    table = (VENDOR / "README.md").read_text()
    rows = re.findall(r"^\| `([^`]+)` \|.*\| `([0-9a-f]{64})` \|$", table, flags=re.MULTILINE)
    assert len(rows) == 8
    for name, digest in rows:
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest, name


def test_pages_load_htmx_from_this_server(client: TestClient) -> None:
    page = client.get("/").text
    found = re.search(
        r'<script src="(/static/vendor/htmx-2\.0\.11\.min\.[0-9a-f]{12}\.js)" defer>', page
    )
    assert found, "htmx, under its hashed name"
    assert "https://" not in page
    script = client.get(found.group(1))
    assert script.status_code == 200
    assert 'version:"2.0.11"' in script.text


def test_static_holds_only_what_browsers_load() -> None:
    """Everything under static/ is served as it is: no script or source of the project's own."""
    kinds = {path.suffix or path.name for path in VENDOR.parent.rglob("*") if path.is_file()}
    licences = {path.name for path in VENDOR.rglob("*-LICENSE")}
    assert kinds - licences == {".css", ".js", ".svg", ".png", ".woff2", ".md"}


FIRST_LOAD = ("/", "/rules")


def _static_links(html: str) -> list[str]:
    return re.findall(r'(?:src|href)="(/static/[^"]+)"', html)


def test_pages_link_every_static_file_by_its_content_hash_and_it_is_kept_for_good(
    client: TestClient,
) -> None:
    game = client.post("/api/v1/games", json={"name": "Ann"}).json()["game"]["id"]
    links = set()
    for path in (*FIRST_LOAD, f"/games/{game}", "/docs"):
        links |= set(_static_links(client.get(path).text))
    assert len(links) >= 12
    for link in links:
        answer = client.get(link)
        assert answer.status_code == 200, link
        assert answer.headers["cache-control"] == "public, max-age=31536000, immutable", link
        digest = re.fullmatch(r"/static/.+\.([0-9a-f]{12})\.[a-z0-9]+", link)
        assert digest, f"{link} holds no hash"
        assert hashlib.sha256(answer.content).hexdigest()[:12] == digest.group(1), link
    # The stylesheet names the fonts by their hashed names too.
    fonts_css = client.get(ASSETS.url("css/fonts.css")).text
    fonts = re.findall(r'url\("(/static/vendor/fonts/[^"]+)"\)', fonts_css)
    assert fonts
    assert all(re.search(r"\.[0-9a-f]{12}\.woff2$", font) for font in fonts)
    font = client.get(fonts[0])
    assert font.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert "content-encoding" not in font.headers  # woff2 is compressed already


def test_a_plain_name_is_checked_each_time_and_an_unchanged_copy_is_a_304(
    client: TestClient,
) -> None:
    plain = client.get("/static/js/penta.js")
    assert plain.headers["cache-control"] == "no-cache"
    etag = plain.headers["etag"]
    again = client.get("/static/js/penta.js", headers={"If-None-Match": etag})
    assert (again.status_code, again.content) == (304, b"")
    assert client.get(ASSETS.url("js/penta.js"), headers={"If-None-Match": etag}).status_code == 304
    assert (
        client.get("/static/js/penta.js", headers={"If-None-Match": '"other"'}).status_code == 200
    )
    for missing in (
        "/static/js/penta.000000000000.js",
        "/static/nothing.css",
        "/static/../app/main.py",
        "/static/%2e%2e/pyproject.toml",
    ):
        assert client.get(missing).status_code == 404, missing


def test_text_files_go_gzipped_to_a_browser_that_takes_it(client: TestClient) -> None:
    url = ASSETS.url("vendor/htmx-2.0.11.min.js")
    raw = (VENDOR / "htmx-2.0.11.min.js").read_bytes()
    gzipped = client.get(url, headers={"Accept-Encoding": "gzip"})
    assert gzipped.headers["content-encoding"] == "gzip"
    assert gzipped.headers["vary"] == "Accept-Encoding"
    assert gzipped.content == raw  # httpx decompressed it
    assert gzipped.num_bytes_downloaded < 0.4 * len(raw)
    for refused in ("identity", "gzip;q=0", "br;q=1, gzip; q=0.0"):
        plain = client.get(url, headers={"Accept-Encoding": refused})
        assert "content-encoding" not in plain.headers, refused
        assert plain.num_bytes_downloaded == len(raw), refused
    assert client.get(ASSETS.url("icons/icon-192.png")).headers.get("content-encoding") is None


def test_a_first_load_moves_under_two_fifths_of_its_static_bytes(client: TestClient) -> None:
    """Counted, not timed: what the home page's static files weigh on the wire, compressed,
    against their size on disk (docs/performance.md has the figure)."""
    links = set()
    for path in FIRST_LOAD:
        links |= set(_static_links(client.get(path).text))
    wire = disk = 0
    for link in links:
        answer = client.get(link, headers={"Accept-Encoding": "gzip"})
        wire += answer.num_bytes_downloaded
        disk += len(answer.content)
    assert wire < 0.4 * disk, (wire, disk)


def test_a_changed_file_gets_a_new_name_and_the_stylesheet_naming_it_too(tmp_path: Path) -> None:
    (tmp_path / "fonts").mkdir()
    (tmp_path / "fonts" / "a.woff2").write_bytes(b"one")
    (tmp_path / "site.css").write_text('@font-face { src: url("/static/fonts/a.woff2"); }')
    before = Assets(tmp_path)
    (tmp_path / "fonts" / "a.woff2").write_bytes(b"two")
    after = Assets(tmp_path)
    assert before.url("fonts/a.woff2") != after.url("fonts/a.woff2")
    assert before.url("site.css") != after.url("site.css")
    found = after.find(after.url("site.css").removeprefix("/static/"))
    assert found
    assert after.url("fonts/a.woff2").encode() in found[0].body
    assert len(after) == 2
