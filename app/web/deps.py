"""Dependency aliases shared by the routes.

The dependencies that only read the request are ``async def``: FastAPI runs a plain ``def``
dependency in its thread pool, a trip dearer than their work (docs/performance.md).
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Header, Request
from fastapi.templating import Jinja2Templates

from app.service.errors import ForbiddenError
from app.service.games import GameService
from app.settings import Settings
from app.web.plumbing.middleware import CSRF_FIELD, CSRF_HEADER


def seat_cookie(game_id: str) -> str:
    """The name of the cookie that holds a browser's seat in one game."""
    return f"penta_seat_{game_id}"


async def get_service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


async def get_templates(request: Request) -> Jinja2Templates:
    templates: Jinja2Templates = request.app.state.templates
    return templates


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def bearer_secret(authorization: Annotated[str | None, Header()] = None) -> str | None:
    """The seat secret of an API client: ``Authorization: Bearer <token>``."""
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return None


async def check_csrf(request: Request) -> None:
    """Refuse a cross-site form post: the browser's signed token must come back.

    htmx sends it as a header (set once on <body>), plain forms as a hidden field.
    """
    if request.headers.get("sec-fetch-site") == "cross-site":
        raise ForbiddenError("csrf")
    expected: str = request.state.csrf_token
    sent = request.headers.get(CSRF_HEADER)
    if sent is None:
        form = await request.form()
        field = form.get(CSRF_FIELD)
        sent = field if isinstance(field, str) else None
    if not sent or not hmac.compare_digest(sent, expected):
        raise ForbiddenError("csrf", "form_expired")


ServiceDep = Annotated[GameService, Depends(get_service)]
TemplatesDep = Annotated[Jinja2Templates, Depends(get_templates)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
BearerDep = Annotated[str | None, Depends(bearer_secret)]
CsrfDep = Depends(check_csrf)
