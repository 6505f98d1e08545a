"""The browser's player: an unguessable secret in a long-lived HttpOnly cookie, sent on every
path (app/service/people.py); a bot holds the same as a player token in a header."""

from __future__ import annotations

from typing import Annotated

from fastapi import Header, Request, Response

from app.service.errors import ForbiddenError
from app.service.people import Players
from app.store.people import Person

PLAYER_COOKIE = "penta_player"
PLAYER_COOKIE_MAX_AGE = 60 * 60 * 24 * 400
"""400 days, the most a browser keeps a cookie; each game played sets it anew."""


def players(request: Request) -> Players:
    found: Players = request.app.state.players
    return found


def player_secret(request: Request) -> str | None:
    return request.cookies.get(PLAYER_COOKIE)


def identify(request: Request, name: str) -> tuple[Person, str | None]:
    """The browser's player, named ``name`` from now on (a new one if it has none) and the
    secret to remember if it is new. In a thread: a write."""
    return players(request).identify(player_secret(request), name)


def remember(request: Request, response: Response, secret: str | None) -> None:
    """Hand the browser its (new) player secret; again, if it has one, so that it lasts."""
    secret = secret or player_secret(request)
    if secret:
        response.set_cookie(
            PLAYER_COOKIE,
            secret,
            max_age=PLAYER_COOKIE_MAX_AGE,
            path="/",
            httponly=True,
            samesite="lax",
            secure=request.app.state.settings.secure_cookies,
        )


PlayerTokenHeader = Annotated[
    str | None,
    Header(
        alias="X-Player-Token",
        max_length=100,
        description="Your player token (POST /api/v1/players): the seat is then yours on "
        "your profile and, in a public game, rated",
    ),
]


def api_player(request: Request, token: str | None) -> str | None:
    """The id of the player whose token a bot sent, if any; 403 for an unknown token."""
    if token is None:
        return None
    person = players(request).find(token)
    if person is None:
        raise ForbiddenError("no_player")
    return person.id
