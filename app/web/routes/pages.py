"""The HTML pages and the htmx actions that return fragments."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from app import __version__, i18n
from app.service.errors import ServiceError
from app.service.fairness import client_seed as valid_client_seed
from app.service.play import Expect
from app.service.seats import resume_token
from app.store.patience import patiently
from app.web import identity
from app.web.deps import CsrfDep, ServiceDep, SettingsDep, TemplatesDep, seat_cookie
from app.web.plumbing.hosts import base_url
from app.web.plumbing.limits import CreateLimit
from app.web.plumbing.middleware import LANGUAGE_COOKIE
from app.web.shared import (
    SEAT_COOKIE_MAX_AGE,
    BoardDep,
    ClientSeedField,
    hints_for,
    page_context,
    seat_moved,
    set_seat_cookie,
)

router = APIRouter(include_in_schema=False)

TurnField = Annotated[int | None, Form()]


async def form_expect(turn: TurnField = None, roll: TurnField = None) -> Expect:
    """What the page showed when the player acted: the turn and the rolls made in it."""
    return Expect(turn=turn, roll=roll)


ExpectDep = Annotated[Expect, Depends(form_expect)]


@router.get("/", response_class=HTMLResponse)
def home(request: Request, templates: TemplatesDep) -> Response:
    # A thread's: this route is sync.
    tables = request.app.state.matching.open_tables()
    person = identity.players(request).find(identity.player_secret(request))
    context = page_context(request, tables=tables, name=person.name if person else "")
    return templates.TemplateResponse(request, "home.html", context)


@router.post("/games", dependencies=[CsrfDep, CreateLimit])
async def create_game(
    request: Request,
    service: ServiceDep,
    templates: TemplatesDep,
    settings: SettingsDep,
    name: Annotated[str, Form(max_length=200)],
    mode: Annotated[str, Form(pattern="^(solo|friends)$")] = "solo",
    turn_seconds: Annotated[str, Form(max_length=4)] = "",
    computer_pace: Annotated[str, Form(pattern="^(normal|fast)$")] = "normal",
    public: Annotated[bool, Form()] = False,
    client_seed: ClientSeedField = "",
) -> Response:
    # Decimal digits of any script, which int() reads: isdigit() also passes '¹', which it refuses.
    timer = int(turn_seconds) if turn_seconds.isdecimal() else None
    language = i18n.current_language().code  # the page's: a public game's list says it
    fresh = None
    try:
        seed = valid_client_seed(client_seed) if client_seed else None  # before the game exists
        person, fresh = await run_in_threadpool(identity.identify, request, name)
        # Two changes, each tried again on its own: a retried create would make two games.
        pace = None if computer_pace == "normal" else computer_pace
        view, secret = await patiently(
            lambda: service.create(
                name,
                turn_seconds=timer,
                computer_pace=pace,
                public=public and mode == "friends",
                person_id=person.id,
                language=language,
            )
        )
        if mode == "solo":
            view = await patiently(lambda: service.start(view.id, secret, client_seed=seed))
    except ServiceError as error:
        context = page_context(
            request, error=i18n.explain(error.reason, error.params), name=name[:32]
        )
        refused = templates.TemplateResponse(
            request, "home.html", context, status_code=error.status
        )
        identity.remember(request, refused, fresh)  # a player made before the refusal
        return refused
    response = RedirectResponse(f"/games/{view.id}", status_code=303)
    set_seat_cookie(response, view.id, secret, secure=settings.secure_cookies)
    identity.remember(request, response, fresh)
    return response


@router.get("/games/{game_id}", response_class=HTMLResponse)
def game_page(
    request: Request, game_id: str, service: ServiceDep, templates: TemplatesDep
) -> Response:
    view = service.get(game_id)
    secret = request.cookies.get(seat_cookie(game_id))
    me = view.seat_of_secret(secret)
    resume_url = None
    if me is not None and (view.is_playing or view.is_waiting) and (hashed := view.seat_hashes[me]):
        token = resume_token(request.app.state.settings.resolved_secret_key, game_id, hashed)
        resume_url = f"{base_url(request)}games/{game_id}/resume/{token}"
    template = "lobby.html" if view.is_waiting else "game.html"
    context = page_context(
        request,
        game=view,
        me=me,
        moved=seat_moved(view, me, secret),
        resume_url=resume_url,
        hints=hints_for(service, view, me),
    )
    return templates.TemplateResponse(request, template, context)


# The game's fragments and actions are ``async def``, as the API's moves are (see
# app/web/routes/api.py).


@router.get("/games/{game_id}/board", response_class=HTMLResponse)
async def board(board: BoardDep) -> Response:
    """The game's fragments as they are now: what a page fetches to resync."""
    return board.fragments()


@router.post("/games/{game_id}/roll", dependencies=[CsrfDep])
async def roll(board: BoardDep, expect: ExpectDep) -> Response:
    """Roll the dice that are not held."""
    return await patiently(
        lambda: board.act(lambda service: service.roll(board.game_id, board.secret, expect=expect))
    )


@router.post("/games/{game_id}/dice/{die}", dependencies=[CsrfDep])
async def hold(
    board: BoardDep, expect: ExpectDep, die: int, held: Annotated[bool, Form()]
) -> Response:
    """Hold (``held=true``) or release one die."""
    return await patiently(
        lambda: board.act(
            lambda service: service.set_hold(board.game_id, board.secret, die, held, expect=expect)
        )
    )


@router.post("/games/{game_id}/score", dependencies=[CsrfDep])
async def score(
    board: BoardDep, expect: ExpectDep, box: Annotated[str, Form(max_length=40)]
) -> Response:
    """Record the dice in the selected box: the Confirm turn button."""
    return await patiently(
        lambda: board.act(
            lambda service: service.score(board.game_id, board.secret, box, expect=expect)
        )
    )


@router.post("/games/{game_id}/auto", dependencies=[CsrfDep])
async def auto(board: BoardDep, expect: ExpectDep) -> Response:
    """The countdown ran out after the third roll: record the computer's box."""
    return await patiently(
        lambda: board.act(lambda service: service.auto(board.game_id, board.secret, expect=expect))
    )


@router.post("/games/{game_id}/hints", dependencies=[CsrfDep])
async def hints(board: BoardDep, enabled: Annotated[bool, Form()]) -> Response:
    """Turn one's own hints on or off."""
    return await patiently(
        lambda: board.act(lambda service: service.set_hints(board.game_id, board.secret, enabled))
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
def healthz(request: Request, service: ServiceDep) -> JSONResponse:
    """For the container's HEALTHCHECK and uptime monitors: 200 ``ok``, or 503 ``unhealthy``
    with the ``reason`` when changes cannot be saved (disk full, read-only, locked); with
    the version, the open live streams, the bus (``local``: one process; ``up``; ``down``
    while Redis is away, when live updates come by polling: slower, still healthy), the size
    of the database's write-ahead log and whether the computer's strategy is ready yet.

    A plain ``def``: the write probe may wait a little, in a worker thread, never on the loop.
    """
    problem = service.database_problem()
    body: dict[str, str | int | bool] = {"status": "ok" if problem is None else "unhealthy"}
    if problem is not None:
        body["reason"] = problem
    body["version"] = __version__
    body["live_streams"] = request.app.state.broker.count()
    body["bus"] = request.app.state.bus.status  # "down" slows live updates: still healthy
    body["wal_bytes"] = service.log_bytes()
    body["strategy_ready"] = service.strategy.is_ready
    return JSONResponse(body, status_code=200 if problem is None else 503)
