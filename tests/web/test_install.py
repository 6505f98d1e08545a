"""Installable Penta: the manifest, its icons, the service worker and the offline page."""

from __future__ import annotations

import struct

from fastapi.testclient import TestClient

from app import __version__
from app.web.assets import ASSETS
from app.web.plumbing.middleware import CONTENT_SECURITY_POLICY, LANGUAGE_COOKIE


def png_size(data: bytes) -> str:
    """A PNG's "WIDTHxHEIGHT", read from its IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return f"{width}x{height}"


def test_the_manifest_names_the_app_and_its_icons_exist(client: TestClient) -> None:
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/manifest+json"
    manifest = response.json()
    assert manifest["name"] == manifest["short_name"] == "Penta"
    assert (manifest["start_url"], manifest["scope"], manifest["display"]) == (
        "/",
        "/",
        "standalone",
    )
    assert manifest["theme_color"] == "#0f5132"
    assert manifest["description"].startswith("Five dice, thirteen boxes")
    declared = {(icon["sizes"], icon.get("purpose", "any")) for icon in manifest["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= declared
    for icon in manifest["icons"]:
        image = client.get(icon["src"])
        assert image.status_code == 200, icon["src"]
        assert image.headers["content-type"] == icon["type"]
        if icon["type"] == "image/png":
            assert png_size(image.content) == icon["sizes"], icon["src"]


def test_the_manifest_speaks_the_language_of_the_browser(client: TestClient) -> None:
    client.cookies.set(LANGUAGE_COOKIE, "he")
    manifest = client.get("/manifest.webmanifest").json()
    assert (manifest["lang"], manifest["dir"]) == ("he", "rtl")
    assert (
        manifest["description"]
        == "חמש קוביות, שלוש עשרה משבצות: משחק קוביות בדפדפן, לבד או עם חברים."
    )


def test_every_page_links_the_manifest_and_the_theme_colour(client: TestClient) -> None:
    for path in ("/", "/rules", "/stats", "/offline"):
        page = client.get(path).text
        assert '<link rel="manifest" href="/manifest.webmanifest">' in page, path
        assert '<meta name="theme-color" content="#0f5132">' in page, path


def test_the_service_worker_is_served_from_the_root_with_this_version(client: TestClient) -> None:
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.headers["cache-control"] == "no-cache"
    assert f'var CACHE = "penta-{__version__}";' in response.text
    assert "__PENTA_VERSION__" not in response.text
    # Everything it keeps is this site's own, and every file it names exists.
    # The files under the hashed names the pages ask for (app/web/assets.py).
    for path in ("/offline", ASSETS.url("css/penta.css"), ASSETS.url("js/site.js")):
        assert f'"{path}"' in response.text
        assert client.get(path).status_code == 200, path
    assert '"/static/css/penta.css"' not in response.text


def test_the_offline_page_is_translated(client: TestClient) -> None:
    assert "You are offline" in client.get("/offline").text
    client.cookies.set(LANGUAGE_COOKIE, "fr")
    assert "Vous êtes hors ligne" in client.get("/offline").text


def test_the_policy_still_allows_only_this_site(client: TestClient) -> None:
    """The manifest and the worker come from this site, which default-src 'self' allows;
    nothing was loosened for them."""
    assert client.get("/sw.js").headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "default-src 'self'" in CONTENT_SECURITY_POLICY
    assert "unsafe" not in CONTENT_SECURITY_POLICY
