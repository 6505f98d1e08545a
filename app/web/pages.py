"""The HTML pages and the htmx actions that return fragments."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app import i18n
from app.service.advice import Advice, advise
from app.service.errors import ServiceError
from app.service.games import Expect, GameService
from app.service.views import GameView
from app.web.deps import CsrfDep, ServiceDep, SettingsDep, TemplatesDep, seat_cookie
from app.web.middleware import LANGUAGE_COOKIE
from app.web.templating import render

router = APIRouter(include_in_schema=False)

SEAT_COOKIE_MAX_AGE = 60 * 60 * 24 * 365
TurnField = Annotated[int | None, Form()]


def hints_for(service: GameService, view: GameView, me: int | None) -> Advice | None:
    """The optimal player's hints, for the player to move who asked for them, else None."""
    if me is None or view.turn != me or not view.players[me].hints:
        return None
    return advise(service.strategy.current(), view.state)


def page_context(request: Request, **context: Any) -> dict[str, Any]:
    """What every template needs besides its own data."""
    return {
        "request": request,
        "csrf_token": request.state.csrf_token,
        "lang": i18n.current_language(),
        "auto_seconds": request.app.state.settings.auto_confirm_seconds,
        "base_url": str(request.base_url),
        **context,
    }


@router.get("/", response_class=HTMLResponse)
def home(request: Request, templates: TemplatesDep) -> Response:
    return templates.TemplateResponse(request, "home.html", page_context(request))


@router.post("/games", dependencies=[CsrfDep])
def create_game(
    request: Request,
    service: ServiceDep,
    templates: TemplatesDep,
    settings: SettingsDep,
    name: Annotated[str, Form(max_length=200)],
    mode: Annotated[str, Form(pattern="^(solo|friends)$")] = "solo",
    turn_seconds: Annotated[str, Form(max_length=4)] = "",
) -> Response:
    try:
        view, secret = service.create(
            name, turn_seconds=int(turn_seconds) if turn_seconds.isdigit() else None
        )
        if mode == "solo":
            view = service.start(view.id, secret)
    except ServiceError as error:
        context = page_context(
            request, error=i18n.translate_error(error.code, error.message), name=name[:32]
        )
        return templates.TemplateResponse(request, "home.html", context, status_code=error.status)
    response = RedirectResponse(f"/games/{view.id}", status_code=303)
    set_seat_cookie(response, view.id, secret, secure=settings.secure_cookies)
    return response


@router.get("/games/{game_id}", response_class=HTMLResponse)
def game_page(
    request: Request, game_id: str, service: ServiceDep, templates: TemplatesDep
) -> Response:
    view = service.get(game_id)
    secret = request.cookies.get(seat_cookie(game_id))
    me = service.seat_of(game_id, secret)
    resume_url = f"{request.base_url}games/{game_id}/resume/{secret}" if me is not None else None
    template = "lobby.html" if view.is_waiting else "game.html"
    context = page_context(
        request, game=view, me=me, resume_url=resume_url, hints=hints_for(service, view, me)
    )
    return templates.TemplateResponse(request, template, context)


@router.get("/games/{game_id}/board", response_class=HTMLResponse)
def board(request: Request, game_id: str, service: ServiceDep, templates: TemplatesDep) -> Response:
    """The game's fragments as they are now: what a page fetches to resync."""
    return _board(request, templates, service, game_id, None)


@router.post("/games/{game_id}/roll", dependencies=[CsrfDep])
def roll(
    request: Request,
    game_id: str,
    service: ServiceDep,
    templates: TemplatesDep,
    turn: TurnField = None,
    roll: TurnField = None,
) -> Response:
    secret = request.cookies.get(seat_cookie(game_id))
    return _act(
        request,
        templates,
        service,
        game_id,
        lambda: service.roll(game_id, secret, expect=Expect(turn=turn, roll=roll)),
    )


@router.post("/games/{game_id}/dice/{die}", dependencies=[CsrfDep])
def hold(
    request: Request,
    game_id: str,
    die: int,
    service: ServiceDep,
    templates: TemplatesDep,
    held: Annotated[bool, Form()],
    turn: TurnField = None,
    roll: TurnField = None,
) -> Response:
    secret = request.cookies.get(seat_cookie(game_id))
    return _act(
        request,
        templates,
        service,
        game_id,
        lambda: service.set_hold(game_id, secret, die, held, expect=Expect(turn=turn, roll=roll)),
    )


@router.post("/games/{game_id}/score", dependencies=[CsrfDep])
def score(
    request: Request,
    game_id: str,
    service: ServiceDep,
    templates: TemplatesDep,
    box: Annotated[str, Form(max_length=40)],
    turn: TurnField = None,
    roll: TurnField = None,
) -> Response:
    secret = request.cookies.get(seat_cookie(game_id))
    return _act(
        request,
        templates,
        service,
        game_id,
        lambda: service.score(game_id, secret, box, expect=Expect(turn=turn, roll=roll)),
    )


@router.post("/games/{game_id}/auto", dependencies=[CsrfDep])
def auto(
    request: Request,
    game_id: str,
    service: ServiceDep,
    templates: TemplatesDep,
    turn: TurnField = None,
    roll: TurnField = None,
) -> Response:
    secret = request.cookies.get(seat_cookie(game_id))
    return _act(
        request,
        templates,
        service,
        game_id,
        lambda: service.auto(game_id, secret, expect=Expect(turn=turn, roll=roll)),
    )


@router.post("/games/{game_id}/hints", dependencies=[CsrfDep])
def hints(
    request: Request,
    game_id: str,
    service: ServiceDep,
    templates: TemplatesDep,
    enabled: Annotated[bool, Form()],
) -> Response:
    """Turn one's own hints on or off."""
    secret = request.cookies.get(seat_cookie(game_id))
    return _act(
        request,
        templates,
        service,
        game_id,
        lambda: service.set_hints(game_id, secret, enabled),
    )


@router.post("/language", dependencies=[CsrfDep])
def choose_language(
    settings: SettingsDep,
    language: Annotated[str, Form(max_length=8)],
    next: Annotated[str, Form(max_length=200)] = "/",
) -> Response:
    """Remember the chosen language in a cookie and go back to the page."""
    target = next if next.startswith("/") and not next.startswith("//") else "/"
    response = RedirectResponse(target, status_code=303)
    if language in i18n.LANGUAGES:
        response.set_cookie(
            LANGUAGE_COOKIE,
            language,
            max_age=SEAT_COOKIE_MAX_AGE,
            httponly=True,
            samesite="lax",
            secure=settings.secure_cookies,
        )
    return response


@router.get("/healthz")
def healthz(request: Request, service: ServiceDep) -> dict[str, str | int]:
    """Liveness and database check for the container's HEALTHCHECK, with the open streams."""
    service.check_database()
    return {"status": "ok", "live_streams": request.app.state.broker.count()}


def _act(
    request: Request,
    templates: TemplatesDep,
    service: GameService,
    game_id: str,
    action: Callable[[], GameView],
) -> Response:
    """Run ``action``; answer htmx with the changed fragments, a plain form with a redirect.

    A refused action answers with its status and the fragments as they are now, so the page
    shows the reason and resyncs in one swap.
    """
    try:
        view = action()
    except ServiceError as error:
        if not request.headers.get("hx-request"):
            if error.status == 404:
                raise
            view = service.get(game_id)
            me = service.seat_of(game_id, request.cookies.get(seat_cookie(game_id)))
            context = page_context(request, game=view, me=me, error=_translated(error))
            return templates.TemplateResponse(
                request, "game.html", context, status_code=error.status
            )
        return _board(request, templates, service, game_id, error)
    if not request.headers.get("hx-request"):
        return RedirectResponse(f"/games/{game_id}", status_code=303)
    return _board(request, templates, service, game_id, None, view=view)


def _board(
    request: Request,
    templates: TemplatesDep,
    service: GameService,
    game_id: str,
    error: ServiceError | None,
    *,
    view: GameView | None = None,
) -> Response:
    view = view or service.get(game_id)
    me = service.seat_of(game_id, request.cookies.get(seat_cookie(game_id)))
    html = render(
        templates,
        "fragments/board.html",
        **page_context(
            request,
            game=view,
            me=me,
            hints=hints_for(service, view, me),
            error=_translated(error) if error else None,
        ),
    )
    return HTMLResponse(html, status_code=error.status if error else 200)


def _translated(error: ServiceError) -> dict[str, str]:
    return {"code": error.code, "message": i18n.translate_error(error.code, error.message)}


def set_seat_cookie(response: Response, game_id: str, secret: str, *, secure: bool) -> None:
    response.set_cookie(
        seat_cookie(game_id),
        secret,
        max_age=SEAT_COOKIE_MAX_AGE,
        path=f"/games/{game_id}",
        httponly=True,
        samesite="lax",
        secure=secure,
    )
