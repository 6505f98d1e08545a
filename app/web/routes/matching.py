"""The quick match's pages: *Play now*, the waiting page that asks every second, and what a
player alone at the end of the wait may choose (app/service/matching.py). Each runs in a
thread, never tried twice: entering the queue and making a table are no moves to repeat."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from app import i18n
from app.service.errors import ForbiddenError, ServiceError
from app.service.matching import TURN_SECONDS, MatchStatus, QuickMatch
from app.web import identity
from app.web.deps import BearerDep, CsrfDep, SettingsDep, TemplatesDep, TokenRoute
from app.web.plumbing.limits import CreateLimit
from app.web.schemas import MatchIn, MatchOut, TableOut, TicketOut
from app.web.shared import (
    ERROR_RESPONSES,
    RATE_LIMITED,
    ClientSeedField,
    page_context,
    set_seat_cookie,
)

router = APIRouter(include_in_schema=False)

MATCH_COOKIE = "penta_match"
"""The waiting browser's secret: its entry in the queue, then its seat at the table."""
MATCH_COOKIE_MAX_AGE = 3600


def _matching(request: Request) -> QuickMatch:
    matching: QuickMatch = request.app.state.matching
    return matching


def _go(game_id: str, secret: str, secure: bool) -> Response:
    """To the table, the seat's cookie set. The wait and its cookie stay until the queue
    forgets the entry (30 s after its page last asked): a poll of the waiting page already
    on its way when the page went to the table is sent to the table too, not home (the last
    redirect a page is given is where it goes)."""
    response = RedirectResponse(f"/games/{game_id}", status_code=303)
    set_seat_cookie(response, game_id, secret, secure=secure)
    return response


@router.post("/match", dependencies=[CsrfDep, CreateLimit])
async def enter(
    request: Request,
    templates: TemplatesDep,
    settings: SettingsDep,
    name: Annotated[str, Form(max_length=200)],
    pair: Annotated[bool, Form()] = False,
    client_seed: ClientSeedField = "",
) -> Response:
    language = i18n.current_language().code  # the page's: the table's, if this one sits first
    fresh = None
    try:
        person, fresh = await run_in_threadpool(identity.identify, request, name)
        secret = await run_in_threadpool(
            lambda: _matching(request).enter(
                name, client_seed or None, person.id, two_only=pair, language=language
            )
        )
    except ServiceError as error:
        context = page_context(
            request, error=i18n.explain(error.reason, error.params), name=name[:32]
        )
        refused = templates.TemplateResponse(
            request, "home.html", context, status_code=error.status
        )
        identity.remember(request, refused, fresh)  # a player made before the refusal
        return refused
    response = RedirectResponse("/match", status_code=303)
    response.set_cookie(
        MATCH_COOKIE,
        secret,
        max_age=MATCH_COOKIE_MAX_AGE,
        path="/match",
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
    )
    identity.remember(request, response, fresh)
    return response


@router.get("/match", response_class=HTMLResponse)
async def waiting_page(
    request: Request, templates: TemplatesDep, settings: SettingsDep
) -> Response:
    secret = request.cookies.get(MATCH_COOKIE)
    try:
        status = await run_in_threadpool(lambda: _matching(request).status(secret))
    except ForbiddenError:
        return RedirectResponse("/", status_code=303)
    if status.game_id is not None and secret:
        return _go(status.game_id, secret, settings.secure_cookies)
    context = page_context(request, status=status, turn_seconds=TURN_SECONDS)
    return templates.TemplateResponse(request, "match.html", context)


@router.get("/match/status", response_class=HTMLResponse)
async def waiting_status(request: Request, templates: TemplatesDep) -> Response:
    """The waiting page's line, asked every second; the page goes to the table once matched
    (``HX-Redirect``), and home if the wait is gone."""
    try:
        status = await run_in_threadpool(
            lambda: _matching(request).status(request.cookies.get(MATCH_COOKIE))
        )
    except ForbiddenError:
        return Response(status_code=204, headers={"HX-Redirect": "/"})
    if status.game_id is not None:
        return Response(status_code=204, headers={"HX-Redirect": "/match"})
    context = page_context(request, status=status, turn_seconds=TURN_SECONDS)
    return templates.TemplateResponse(request, "fragments/match_status.html", context)


@router.get("/tables", response_class=HTMLResponse)
async def tables(request: Request, templates: TemplatesDep) -> Response:
    """The home page's open tables, asked again every few seconds."""
    listed = await run_in_threadpool(_matching(request).open_tables)
    context = page_context(request, tables=listed)
    return templates.TemplateResponse(request, "fragments/open_tables.html", context)


@router.post("/match/again", dependencies=[CsrfDep])
async def wait_again(request: Request) -> Response:
    secret = request.cookies.get(MATCH_COOKIE)
    try:
        await run_in_threadpool(lambda: _matching(request).status(secret, again=True))
    except ForbiddenError:
        return RedirectResponse("/", status_code=303)
    return RedirectResponse("/match", status_code=303)


@router.post("/match/computer", dependencies=[CsrfDep])
async def play_the_computer(request: Request, settings: SettingsDep) -> Response:
    try:
        view, secret = await run_in_threadpool(
            lambda: _matching(request).play_the_computer(request.cookies.get(MATCH_COOKIE))
        )
    except ForbiddenError:
        return RedirectResponse("/", status_code=303)
    response = RedirectResponse(f"/games/{view.id}", status_code=303)
    set_seat_cookie(response, view.id, secret, secure=settings.secure_cookies)
    response.delete_cookie(MATCH_COOKIE, path="/match")
    return response


@router.post("/match/leave", dependencies=[CsrfDep])
async def stop_waiting(request: Request) -> Response:
    await run_in_threadpool(lambda: _matching(request).leave(request.cookies.get(MATCH_COOKIE)))
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(MATCH_COOKIE, path="/match")
    return response


# -- the JSON API: a bot waits for a table as a browser does -------------------------------

api = APIRouter(
    prefix="/api/v1",
    tags=["quick match"],
    responses=ERROR_RESPONSES,  # type: ignore[arg-type]
    route_class=TokenRoute,
)


def _match_out(status: MatchStatus) -> MatchOut:
    return MatchOut(
        waiting=status.waiting,
        seconds_left=status.seconds_left,
        game_id=status.game_id,
        alone=status.alone,
    )


def _status_out(status: MatchStatus) -> Response:
    return Response(_match_out(status).model_dump_json(), media_type="application/json")


@api.get("/tables", response_model=list[TableOut], summary="Public tables waiting or in play")
def api_tables(request: Request) -> Response:
    listed = _matching(request).open_tables()
    body = ",".join(
        TableOut(
            game_id=table.game_id,
            status=table.status,
            players=list(table.names),
            round=table.scored // len(table.names) + 1 if table.names else 1,
            turn_seconds=table.turn_seconds,
            language=table.language,
        ).model_dump_json()
        for table in listed
    )
    return Response(f"[{body}]", media_type="application/json")


@api.post(
    "/match",
    status_code=201,
    response_model=TicketOut,
    dependencies=[CreateLimit],
    responses=RATE_LIMITED,  # type: ignore[arg-type]
    summary="Wait for a quick match: the token is your ticket, then your seat's",
)
def api_enter(
    request: Request, body: MatchIn, player: identity.PlayerTokenHeader = None
) -> Response:
    person_id = identity.api_player(request, player)
    secret = _matching(request).enter(
        body.name,
        body.client_seed,
        person_id,
        two_only=body.two_players_only,
        language=body.language,
    )
    answer = TicketOut(**_match_out(_matching(request).status(secret)).model_dump(), token=secret)
    return Response(answer.model_dump_json(), 201, media_type="application/json")


@api.get("/match", response_model=MatchOut, summary="Your wait (ask every second)")
def api_wait(request: Request, token: BearerDep) -> Response:
    """Once ``game_id`` is set, your ticket is your seat's token in that game."""
    return _status_out(_matching(request).status(token))


@api.post("/match/again", response_model=MatchOut, summary="Wait again, alone at the end")
def api_wait_again(request: Request, token: BearerDep) -> Response:
    return _status_out(_matching(request).status(token, again=True))


@api.delete("/match", status_code=204, summary="Stop waiting")
def api_leave(request: Request, token: BearerDep) -> Response:
    _matching(request).leave(token)
    return Response(status_code=204)
