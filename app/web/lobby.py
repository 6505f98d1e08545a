"""Games with friends: joining by the shared link, computer seats, starting, rematch, resume."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from app import i18n
from app.service.errors import ServiceError
from app.web.deps import CsrfDep, ServiceDep, SettingsDep, TemplatesDep, seat_cookie
from app.web.limits import CreateLimit, JoinLimit
from app.web.pages import ClientSeedField, page_context, set_seat_cookie

router = APIRouter(include_in_schema=False)


def _back(game_id: str) -> RedirectResponse:
    return RedirectResponse(f"/games/{game_id}", status_code=303)


@router.post("/games/{game_id}/join", dependencies=[CsrfDep, JoinLimit])
def join(
    request: Request,
    game_id: str,
    service: ServiceDep,
    templates: TemplatesDep,
    settings: SettingsDep,
    name: Annotated[str, Form(max_length=200)],
    client_seed: ClientSeedField = "",
) -> Response:
    """Take a seat with a name while the game waits; the seat's secret goes in a cookie."""
    if service.seat_of(game_id, request.cookies.get(seat_cookie(game_id))) is not None:
        return _back(game_id)
    try:
        view, secret = service.join(game_id, name, client_seed=client_seed or None)
    except ServiceError as error:
        if error.status == 404:
            raise
        view = service.get(game_id)
        message = i18n.translate_error(error.code, error.message)
        context = page_context(
            request, game=view, me=None, error={"code": error.code, "message": message}
        )
        template = "lobby.html" if view.is_waiting else "game.html"
        return templates.TemplateResponse(request, template, context, status_code=error.status)
    response = _back(game_id)
    set_seat_cookie(response, view.id, secret, secure=settings.secure_cookies)
    return response


@router.post("/games/{game_id}/computers", dependencies=[CsrfDep])
def add_computer(request: Request, game_id: str, service: ServiceDep) -> Response:
    """The host adds a computer player."""
    service.add_computer(game_id, request.cookies.get(seat_cookie(game_id)))
    return _back(game_id)


@router.post("/games/{game_id}/start", dependencies=[CsrfDep])
def start(
    request: Request, game_id: str, service: ServiceDep, client_seed: ClientSeedField = ""
) -> Response:
    """The host starts the game; every open lobby follows to the game page."""
    secret = request.cookies.get(seat_cookie(game_id))
    service.start(game_id, secret, client_seed=client_seed or None)
    return _back(game_id)


@router.post("/games/{game_id}/rematch", dependencies=[CsrfDep, CreateLimit])
def rematch(request: Request, game_id: str, service: ServiceDep) -> Response:
    """A new game with the same players; every open page of this one is brought to it."""
    service.rematch(game_id, request.cookies.get(seat_cookie(game_id)))
    return RedirectResponse(f"/games/{game_id}/rematch", status_code=303)


@router.get("/games/{game_id}/rematch")
def follow_rematch(
    request: Request, game_id: str, service: ServiceDep, settings: SettingsDep
) -> Response:
    """Go to the rematch, taking this browser's seat along (the seat cookie is per game)."""
    view = service.get(game_id)
    if view.rematch_id is None:
        return _back(game_id)
    response = _back(view.rematch_id)
    secret = request.cookies.get(seat_cookie(game_id))
    if secret and service.seat_of(view.rematch_id, secret) is not None:
        set_seat_cookie(response, view.rematch_id, secret, secure=settings.secure_cookies)
    return response


@router.get("/games/{game_id}/resume/{secret}")
def resume(game_id: str, secret: str, service: ServiceDep, settings: SettingsDep) -> Response:
    """The private "continue on another device" link: this browser takes the seat too."""
    response = _back(game_id)
    if service.seat_of(game_id, secret) is not None:
        set_seat_cookie(response, game_id, secret, secure=settings.secure_cookies)
    return response
