"""Games with friends: joining by the shared link, computer seats, starting, rematch, resume."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from app import i18n
from app.service.errors import ServiceError
from app.service.seats import seat_of_resume_token
from app.settings import Settings
from app.web import identity
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
    fresh = None
    try:
        person, fresh = identity.identify(request, name)
        view, secret = service.join(
            game_id, name, client_seed=client_seed or None, person_id=person.id
        )
    except ServiceError as error:
        if error.status == 404:
            raise
        view = service.get(game_id)
        message = i18n.explain(error.reason, error.params)
        context = page_context(
            request, game=view, me=None, error={"code": error.code, "message": message}
        )
        template = "lobby.html" if view.is_waiting else "game.html"
        refused = templates.TemplateResponse(request, template, context, status_code=error.status)
        identity.remember(request, refused, fresh)  # a player made before the refusal
        return refused
    response = _back(game_id)
    set_seat_cookie(response, view.id, secret, secure=settings.secure_cookies)
    identity.remember(request, response, fresh)
    return response


@router.post("/games/{game_id}/computers", dependencies=[CsrfDep])
def add_computer(request: Request, game_id: str, service: ServiceDep) -> Response:
    """The host adds a computer player."""
    service.add_computer(game_id, request.cookies.get(seat_cookie(game_id)))
    return _back(game_id)


@router.post("/games/{game_id}/seats/{seat}/remove", dependencies=[CsrfDep])
def remove_seat(request: Request, game_id: str, seat: int, service: ServiceDep) -> Response:
    """The host removes a computer or a player from the lobby."""
    service.remove_seat(game_id, request.cookies.get(seat_cookie(game_id)), seat)
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
    rematch_id, fresh = service.rematches.offer(game_id, secret)
    return _to_rematch(rematch_id, fresh, settings)


@router.post("/games/{game_id}/rematch/join", dependencies=[CsrfDep, JoinLimit])
def join_rematch(
    request: Request, game_id: str, service: ServiceDep, settings: SettingsDep
) -> Response:
    """Take up the offered rematch: a seat in its lobby, held by a new secret of its own."""
    secret = request.cookies.get(seat_cookie(game_id))
    view, fresh = service.rematches.answer(game_id, secret, join=True)
    assert view.rematch_id is not None
    return _to_rematch(view.rematch_id, fresh, settings)


@router.post("/games/{game_id}/rematch/decline", dependencies=[CsrfDep])
def decline_rematch(request: Request, game_id: str, service: ServiceDep) -> Response:
    """Decline the offered rematch: everyone sees it; this page stays on the finished game."""
    service.rematches.answer(game_id, request.cookies.get(seat_cookie(game_id)), join=False)
    return _back(game_id)


def _to_rematch(rematch_id: str, fresh: str | None, settings: Settings) -> Response:
    """To the rematch, with this browser's new seat there if it just took one (the seat
    cookie is per game, and so is its secret)."""
    response = _back(rematch_id)
    if fresh is not None:
        set_seat_cookie(response, rematch_id, fresh, secure=settings.secure_cookies)
    return response


@router.get("/games/{game_id}/rematch")
def follow_rematch(game_id: str, service: ServiceDep) -> Response:
    """Go to the rematch (to its lobby, or to watch it); a browser that joined or offered it
    holds its seat there by the cookie it got then."""
    view = service.get(game_id)
    return _back(view.rematch_id or game_id)


@router.get("/games/{game_id}/resume/{token}")
def resume_page(
    request: Request,
    game_id: str,
    token: str,
    service: ServiceDep,
    templates: TemplatesDep,
    settings: SettingsDep,
) -> Response:
    """The private "continue on another device" link: asks before it moves the seat here.

    A GET changes nothing, so a chat app that previews the link cannot take the seat. The
    link carries a token of its own, never the seat's secret (:func:`resume_token`)."""
    view = service.get(game_id)
    seat = seat_of_resume_token(game_id, view.seat_hashes, settings.resolved_secret_key, token)
    context = page_context(request, game=view, seat=seat, token=token)
    return templates.TemplateResponse(request, "resume.html", context)


@router.post("/games/{game_id}/resume/{token}", dependencies=[CsrfDep])
def resume(game_id: str, token: str, service: ServiceDep, settings: SettingsDep) -> Response:
    """Move the seat to this browser: its secret is rotated, so the old browser loses it, and
    the link dies with the old secret."""
    response = _back(game_id)
    try:
        view, fresh = service.move_seat(game_id, token, settings.resolved_secret_key)
    except ServiceError as error:
        if error.status == 404:
            raise
        return response  # a link already used: this browser watches
    set_seat_cookie(response, view.id, fresh, secure=settings.secure_cookies)
    return response
