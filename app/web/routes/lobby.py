"""Games with friends: joining by the shared link, computer seats, starting, rematch, resume."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from app import i18n
from app.service.errors import ServiceError
from app.service.games import GameService
from app.service.seats import hash_secret
from app.settings import Settings
from app.web.deps import CsrfDep, ServiceDep, SettingsDep, TemplatesDep, seat_cookie
from app.web.plumbing.limits import CreateLimit, JoinLimit
from app.web.shared import ClientSeedField, page_context, set_seat_cookie

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
        message = i18n.explain(error.reason, error.params)
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


# Offering creates a game and joining takes a seat: each counted as the lobby's own are.
@router.post("/games/{game_id}/rematch", dependencies=[CsrfDep, CreateLimit])
def offer_rematch(
    request: Request, game_id: str, service: ServiceDep, settings: SettingsDep
) -> Response:
    """Offer a rematch: the offerer goes to its lobby; the others see the offer and answer."""
    secret = request.cookies.get(seat_cookie(game_id))
    rematch_id = service.rematches.offer(game_id, secret)
    return _to_rematch(service, game_id, rematch_id, secret, settings)


@router.post("/games/{game_id}/rematch/join", dependencies=[CsrfDep, JoinLimit])
def join_rematch(
    request: Request, game_id: str, service: ServiceDep, settings: SettingsDep
) -> Response:
    """Take up the offered rematch: a seat in its lobby, held by this browser's secret."""
    secret = request.cookies.get(seat_cookie(game_id))
    view = service.rematches.answer(game_id, secret, join=True)
    assert view.rematch_id is not None
    return _to_rematch(service, game_id, view.rematch_id, secret, settings)


@router.post("/games/{game_id}/rematch/decline", dependencies=[CsrfDep])
def decline_rematch(request: Request, game_id: str, service: ServiceDep) -> Response:
    """Decline the offered rematch: everyone sees it; this page stays on the finished game."""
    service.rematches.answer(game_id, request.cookies.get(seat_cookie(game_id)), join=False)
    return _back(game_id)


def _to_rematch(
    service: GameService, game_id: str, rematch_id: str, secret: str | None, settings: Settings
) -> Response:
    """To the rematch, taking this browser's seat along (the seat cookie is per game)."""
    response = _back(rematch_id)
    if secret and service.seat_of(rematch_id, secret) is not None:
        set_seat_cookie(response, rematch_id, secret, secure=settings.secure_cookies)
    return response


@router.get("/games/{game_id}/rematch")
def follow_rematch(
    request: Request, game_id: str, service: ServiceDep, settings: SettingsDep
) -> Response:
    """Go to the rematch (to its lobby, or to watch it), with this browser's seat if it has
    one there."""
    view = service.get(game_id)
    if view.rematch_id is None:
        return _back(game_id)
    secret = request.cookies.get(seat_cookie(game_id))
    return _to_rematch(service, game_id, view.rematch_id, secret, settings)


@router.get("/games/{game_id}/resume/{secret}")
def resume_page(
    request: Request, game_id: str, secret: str, service: ServiceDep, templates: TemplatesDep
) -> Response:
    """The private "continue on another device" link: asks before it moves the seat here.

    A GET changes nothing, so a chat app that previews the link cannot take the seat."""
    view = service.get(game_id)
    seat = view.seat_of_hash(hash_secret(secret))
    context = page_context(request, game=view, seat=seat, secret=secret)
    return templates.TemplateResponse(request, "resume.html", context)


@router.post("/games/{game_id}/resume/{secret}", dependencies=[CsrfDep])
def resume(game_id: str, secret: str, service: ServiceDep, settings: SettingsDep) -> Response:
    """Move the seat to this browser: its secret is rotated, so the old browser loses it."""
    response = _back(game_id)
    try:
        view, fresh = service.move_seat(game_id, secret)
    except ServiceError as error:
        if error.status == 404:
            raise
        return response  # a link already used: this browser watches
    set_seat_cookie(response, view.id, fresh, secure=settings.secure_cookies)
    return response
