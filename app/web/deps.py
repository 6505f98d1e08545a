"""Dependency aliases shared by the routes.

The dependencies that only read the request are ``async def``: FastAPI runs a plain ``def``
dependency in its thread pool, a trip dearer than their work (docs/performance.md).
"""

from __future__ import annotations

import copy
import hmac
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
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


async def bearer_secret(request: Request) -> str | None:
    """The seat secret of an API client: ``Authorization: Bearer <token>``.

    Read from the request, not as a ``Header()`` parameter, which FastAPI looked up and
    validated with pydantic on every action (1.6 % of a bot's move, client included:
    docs/performance.md); :class:`TokenRoute` documents the header as that parameter did."""
    authorization = request.headers.get("authorization")
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return None


AUTHORIZATION_PARAMETER = {
    "name": "authorization",
    "in": "header",
    "required": False,
    "schema": {"anyOf": [{"type": "string"}, {"type": "null"}], "title": "Authorization"},
}
"""The ``Authorization`` header in the API's schema, as FastAPI wrote it for a ``Header()``."""


class TokenRoute(APIRoute):
    """An API route whose schema names the ``Authorization`` header when the route takes the
    seat's token (:data:`BearerDep`, at any depth of its dependencies). Only the route's own
    dependencies are seen: the token taken through ``include_router(dependencies=...)`` would
    go undocumented (none is)."""

    def __init__(self, *arguments: Any, **options: Any) -> None:
        super().__init__(*arguments, **options)
        if depends_on(self.dependant, bearer_secret):
            extra = dict(self.openapi_extra or {})
            parameter = copy.deepcopy(AUTHORIZATION_PARAMETER)  # FastAPI keeps it in the schema
            extra["parameters"] = [*extra.get("parameters", []), parameter]
            self.openapi_extra = extra


def depends_on(dependant: Dependant, call: Callable[..., Any]) -> bool:
    """Whether ``call`` is among the dependencies of ``dependant``, at any depth."""
    return any(
        dependency.call is call or depends_on(dependency, call)
        for dependency in dependant.dependencies
    )


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
