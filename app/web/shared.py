"""What the routes share: the page context, the seat cookie, hints, the game page's board and
the bot API's documented refusals. Routes import this module, never one another."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from app import i18n
from app.analysis.advice import Advice, advise
from app.service.errors import ServiceError
from app.service.games import GameService
from app.service.seats import hash_secret
from app.service.views import GameView
from app.web.compression import gzipped
from app.web.deps import ServiceDep, TemplatesDep, seat_cookie
from app.web.plumbing.hosts import base_url
from app.web.schemas import ErrorOut
from app.web.templating import render

SEAT_COOKIE_MAX_AGE = 60 * 60 * 24 * 365
ClientSeedField = Annotated[str, Form(max_length=200)]
"""A person's seed for the dice, made by static/js/fairness.js; empty: the server makes one."""

# What any operation may refuse with, each an ErrorOut: the router documents them all.
ERROR_RESPONSES = {
    status: {"model": ErrorOut, "description": description}
    for status, description in (
        (400, "Unreadable body (not JSON, or not UTF-8)"),
        (403, "Not your seat, or not your turn"),
        (404, "No such game"),
        (409, "Not allowed now (illegal by the rules, stale, or the wrong phase)"),
        (413, "Request body too large"),
        (422, "Malformed input"),
    )
}
RATE_LIMITED = {
    429: {"model": ErrorOut, "description": "Too many from your address: see Retry-After"}
}


PREPARING: Literal["preparing"] = "preparing"
"""Hints asked for while the strategy table is still being built."""


def hints_for(
    service: GameService, view: GameView, me: int | None
) -> Advice | Literal["preparing"] | None:
    """The optimal player's hints, for the player to move who asked for them, else None;
    :data:`PREPARING` until the table is ready (the fallback's figures would mislead)."""
    if me is None or view.turn != me or not view.players[me].hints:
        return None
    if not service.strategy.is_ready:
        return PREPARING
    return advise(service.strategy.current(), view.state)


def seat_moved(view: GameView, me: int | None, secret: str | None) -> bool:
    """Whether this browser's seat has moved to another device (it now watches)."""
    return me is None and view.has_moved_from(hash_secret(secret) if secret else None)


def page_context(request: Request, **context: Any) -> dict[str, Any]:
    """What every template needs besides its own data."""
    return {
        "request": request,
        "csrf_token": request.state.csrf_token,
        "lang": i18n.current_language(),
        "auto_seconds": request.app.state.settings.auto_confirm_seconds,
        "base_url": base_url(request),
        **context,
    }


@dataclass(frozen=True)
class Board:
    """The game page's fragments for one browser, and the actions that change them."""

    request: Request
    templates: Jinja2Templates
    service: GameService
    game_id: str
    secret: str | None

    def act(self, action: Callable[[GameService], GameView]) -> Response:
        """Run ``action``; answer htmx with the changed fragments, a plain form with a redirect.

        A refused action answers with its status and the fragments as they are now, so the
        page shows the reason and resyncs in one swap.
        """
        try:
            view = action(self.service)
        except ServiceError as error:
            if self.request.headers.get("hx-request"):
                return self.fragments(error=error)
            if error.status == 404:
                raise
            context = self.context(self.service.get(self.game_id), error)
            return self.templates.TemplateResponse(
                self.request, "game.html", context, status_code=error.status
            )
        if not self.request.headers.get("hx-request"):
            return RedirectResponse(f"/games/{self.game_id}", status_code=303)
        return self.fragments(view=view)

    def fragments(
        self, *, view: GameView | None = None, error: ServiceError | None = None
    ) -> Response:
        """The dice tray with its out-of-band siblings, as the game is now."""
        context = self.context(view or self.service.get(self.game_id), error)
        html = render(self.templates, "fragments/board.html", **context)
        return gzipped(self.request, HTMLResponse(html, status_code=error.status if error else 200))

    def context(self, view: GameView, error: ServiceError | None) -> dict[str, Any]:
        me = view.seat_of_secret(self.secret)  # the view the move made: no second read
        return page_context(
            self.request,
            game=view,
            me=me,
            moved=seat_moved(view, me, self.secret),
            hints=hints_for(self.service, view, me),
            error=translated_error(error) if error else None,
        )


async def get_board(
    request: Request, game_id: str, service: ServiceDep, templates: TemplatesDep
) -> Board:
    return Board(request, templates, service, game_id, request.cookies.get(seat_cookie(game_id)))


BoardDep = Annotated[Board, Depends(get_board)]


def translated_error(error: ServiceError) -> dict[str, str]:
    return {"code": error.code, "message": i18n.explain(error.reason, error.params)}


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
