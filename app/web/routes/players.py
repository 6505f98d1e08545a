"""Players: my games (``/me``), a player's profile, the leaderboard, the one-time link that
moves a player to another device; and the same as JSON for bots (app/service/people.py).

Every one runs in a thread (``def``): they read across games, none is a move."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.service.errors import ForbiddenError
from app.service.people import Mine, Profile
from app.service.ratings import Shown
from app.store.people import Person, Seat, Totals
from app.web import identity
from app.web.deps import CsrfDep, TemplatesDep
from app.web.plumbing.hosts import base_url
from app.web.plumbing.limits import CreateLimit
from app.web.schemas import (
    LeaderOut,
    NameIn,
    PersonOut,
    PlayerTokenOut,
    ProfileOut,
    RatingOut,
    SeatSummaryOut,
    TotalsOut,
)
from app.web.shared import ERROR_RESPONSES, RATE_LIMITED, page_context

router = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api/v1", tags=["players"], responses=ERROR_RESPONSES)  # type: ignore[arg-type]


# -- pages ---------------------------------------------------------------------------------


@router.get("/me", response_class=HTMLResponse)
def my_games(request: Request, templates: TemplatesDep) -> Response:
    """My games: a browser that has not played yet is told how to begin."""
    try:
        mine: Mine | None = identity.players(request).mine(identity.player_secret(request))
    except ForbiddenError:
        mine = None
    response = templates.TemplateResponse(request, "me.html", page_context(request, mine=mine))
    identity.remember(request, response, None)  # each visit keeps the cookie alive
    return response


@router.post("/me/name", dependencies=[CsrfDep])
def rename(
    request: Request, name: Annotated[str, Form(max_length=200)], templates: TemplatesDep
) -> Response:
    identity.players(request).rename(identity.player_secret(request), name)
    return RedirectResponse("/me", status_code=303)


@router.post("/me/link", dependencies=[CsrfDep])
def open_link(request: Request, templates: TemplatesDep) -> Response:
    """Make a one-time link to take this player to another device (shown once, here)."""
    players = identity.players(request)
    secret = identity.player_secret(request)
    token = players.open_link(secret)
    link = f"{base_url(request)}players/link/{token}"
    context = page_context(request, mine=players.mine(secret), link=link)
    return templates.TemplateResponse(request, "me.html", context)


@router.get("/players/link/{token}", response_class=HTMLResponse)
def link_page(request: Request, token: str, templates: TemplatesDep) -> Response:
    """Asks before it moves the player here: a GET (a chat app's preview) changes nothing."""
    person = identity.players(request).linked(token)
    context = page_context(request, person=person, token=token)
    status = 200 if person is not None else 403
    return templates.TemplateResponse(request, "player_link.html", context, status_code=status)


@router.post("/players/link/{token}", dependencies=[CsrfDep])
def take_link(request: Request, token: str) -> Response:
    """This browser becomes the player; the link and the other device's hold die."""
    _person, secret = identity.players(request).take_link(token)
    response = RedirectResponse("/me", status_code=303)
    identity.remember(request, response, secret)
    return response


@router.get("/players/{person_id}", response_class=HTMLResponse)
def profile_page(request: Request, person_id: str, templates: TemplatesDep) -> Response:
    profile = identity.players(request).profile(person_id, identity.player_secret(request))
    me = identity.players(request).find(identity.player_secret(request))
    context = page_context(request, profile=profile, mine=me is not None and me.id == person_id)
    return templates.TemplateResponse(request, "profile.html", context)


@router.get("/leaderboard", response_class=HTMLResponse)
def leaderboard_page(request: Request, templates: TemplatesDep) -> Response:
    leaders = identity.players(request).leaderboard()
    me = identity.players(request).find(identity.player_secret(request))
    context = page_context(request, leaders=leaders, me=me)
    return templates.TemplateResponse(request, "leaderboard.html", context)


# -- the JSON API --------------------------------------------------------------------------


def _rating(shown: Shown, person: Person) -> RatingOut:
    return RatingOut(
        value=shown.value,
        plus_minus=shown.plus_minus,
        rated_games=person.rated_games,
        mu=person.mu,
        sigma=person.sigma,
    )


def _seat(seat: Seat) -> SeatSummaryOut:
    return SeatSummaryOut(
        game_id=seat.game_id,
        status=seat.status,
        public=seat.public,
        seat=seat.seat,
        players=list(seat.names),
        totals=list(seat.totals),
        rank=seat.rank,
    )


def _totals(totals: Totals) -> TotalsOut:
    return TotalsOut(
        played=totals.played,
        wins=totals.wins,
        average=totals.average,
        best=totals.best,
        pentas=totals.pentas,
    )


def _profile(profile: Profile) -> ProfileOut:
    return ProfileOut(
        player=PersonOut(id=profile.person.id, name=profile.person.name),
        rating=_rating(profile.rating, profile.person),
        totals=_totals(profile.totals),
        finished=[_seat(seat) for seat in profile.finished],
    )


def _json(answer: ProfileOut | PlayerTokenOut | list[LeaderOut], status: int = 200) -> Response:
    if isinstance(answer, list):
        body = "[" + ",".join(item.model_dump_json() for item in answer) + "]"
    else:
        body = answer.model_dump_json()
    return Response(body, status, media_type="application/json")


@api.post(
    "/players",
    status_code=201,
    response_model=PlayerTokenOut,
    dependencies=[CreateLimit],
    responses=RATE_LIMITED,  # type: ignore[arg-type]
    summary="Become a player: keep the token, send it as X-Player-Token",
)
def create_player(request: Request, body: NameIn) -> Response:
    person, token = identity.players(request).create(body.name)
    return _json(PlayerTokenOut(player=PersonOut(id=person.id, name=person.name), token=token), 201)


@api.get("/players/me", response_model=ProfileOut, summary="My games and totals")
def api_me(request: Request, token: identity.PlayerTokenHeader = None) -> Response:
    mine = identity.players(request).mine(token)
    answer = _profile(mine.profile)
    answer.playing = [_seat(game.seat) for game in mine.playing]
    answer.my_turn = [game.seat.game_id for game in mine.playing if game.my_turn]
    return _json(answer)


@api.patch("/players/me", response_model=ProfileOut, summary="Change my name")
def api_rename(
    request: Request, body: NameIn, token: identity.PlayerTokenHeader = None
) -> Response:
    identity.players(request).rename(token, body.name)
    return api_me(request, token)


@api.get(
    "/players/{person_id}",
    response_model=ProfileOut,
    summary="A player's profile (public games, and the private ones you sat in too)",
)
def api_profile(
    request: Request, person_id: str, token: identity.PlayerTokenHeader = None
) -> Response:
    return _json(_profile(identity.players(request).profile(person_id, token)))


@api.get(
    "/leaderboard",
    response_model=list[LeaderOut],
    summary="Players with at least 5 rated games, best rating first",
)
def api_leaderboard(request: Request) -> Response:
    leaders = identity.players(request).leaderboard()
    return _json(
        [
            LeaderOut(
                rank=number,
                player=PersonOut(id=person.id, name=person.name),
                rating=_rating(shown, person),
            )
            for number, (person, shown) in enumerate(leaders, start=1)
        ]
    )
