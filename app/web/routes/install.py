"""Installing Penta to a home screen: the web app manifest, the service worker, the offline page.

The service worker is served from the root (not /static/) so that its scope covers the whole
site; its cache is named after the version, so that an update drops the old files.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from app import __version__, i18n
from app.settings import ROOT
from app.web.assets import ASSETS
from app.web.deps import TemplatesDep
from app.web.shared import page_context

router = APIRouter(include_in_schema=False)

THEME_COLOUR = "#0f5132"
"""The dice tray's green: the phone's status bar matches the board."""
SERVICE_WORKER = re.sub(
    r'"/static/([^"]+)"',
    lambda match: f'"{ASSETS.url(match.group(1))}"',
    (ROOT / "static" / "sw.js").read_text(),
)
"""The worker's script, with the files it keeps for offline use under their hashed names: the
names the pages ask for."""


@router.get("/manifest.webmanifest")
def manifest() -> Response:
    language = i18n.current_language()
    icons: list[dict[str, Any]] = [
        {"src": ASSETS.url("favicon.svg"), "sizes": "any", "type": "image/svg+xml"},
        {"src": ASSETS.url("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
        {"src": ASSETS.url("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
        {
            "src": ASSETS.url("icons/icon-maskable-512.png"),
            "sizes": "512x512",
            "type": "image/png",
            "purpose": "maskable",
        },
    ]
    body = {
        "name": "Penta",
        "short_name": "Penta",
        "description": i18n.gettext(
            "Five dice, thirteen boxes: a dice game to play in the browser, alone or with friends."
        ),
        "lang": language.code,
        "dir": language.direction,
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#f7f5f0",
        "theme_color": THEME_COLOUR,
        "icons": icons,
    }
    return JSONResponse(body, media_type="application/manifest+json")


@router.get("/sw.js")
def service_worker() -> Response:
    script = SERVICE_WORKER.replace("__PENTA_VERSION__", __version__)
    # Browsers check for a new worker on navigation; no HTTP cache may hide it from them.
    return Response(script, media_type="text/javascript", headers={"cache-control": "no-cache"})


@router.get("/offline", response_class=HTMLResponse)
def offline(request: Request, templates: TemplatesDep) -> Response:
    """The page the service worker shows when a page cannot be reached (kept in its cache)."""
    return templates.TemplateResponse(request, "offline.html", page_context(request))
