"""Around the table: handing an absent player's seat to the computer, and quick reactions.

The page's forms post here (htmx, with the CSRF header) and bots use the same under
``/api/v1``; what follows reaches every open page through its live stream.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from app.service.reactions import REACTIONS, Reactions
from app.service.stand_in import StandIns
from app.store.patience import patiently
from app.web.deps import BearerDep, CsrfDep, TokenRoute
from app.web.schemas import ErrorOut, GameOut
from app.web.shared import BoardDep

router = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api/v1", tags=["games"], route_class=TokenRoute)

_REFUSALS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorOut, "description": description}
    for status, description in (
        (400, "Unreadable body (not JSON, or not UTF-8)"),
        (403, "You hold no seat in this game"),
        (404, "No such game"),
        (409, "Not allowed now (see the code)"),
        (413, "Request body too large"),
        (422, "Malformed input"),
    )
}


def _stand_ins(request: Request) -> StandIns:
    stand_ins: StandIns = request.app.state.stand_ins
    return stand_ins


def _reactions(request: Request) -> Reactions:
    reactions: Reactions = request.app.state.reactions
    return reactions


@router.post("/games/{game_id}/stand-in", dependencies=[CsrfDep])
async def hand_over(request: Request, board: BoardDep, seat: Annotated[int, Form()]) -> Response:
    """Let the computer play the absent player to move until they open the game again."""
    stand_ins = _stand_ins(request)
    return await patiently(
        lambda: board.act(lambda _service: stand_ins.hand_over(board.game_id, board.secret, seat))
    )


@router.post("/games/{game_id}/reactions", dependencies=[CsrfDep], status_code=204)
async def react(
    request: Request, board: BoardDep, reaction: Annotated[str, Form(max_length=16)]
) -> Response:
    """Show a quick reaction to everyone at the table (nothing is stored)."""
    _reactions(request).react(board.game_id, board.secret, reaction)
    return Response(status_code=204)


class StandInIn(BaseModel):
    """The seat to hand to the computer: the player to move, away long enough."""

    seat: int = Field(ge=0, le=5)


class ReactionIn(BaseModel):
    """One of the fixed reactions."""

    reaction: str = Field(description=f"one of {', '.join(REACTIONS)}", max_length=16)


@api.post("/games/{game_id}/stand-in", response_model=GameOut, responses=_REFUSALS)
async def api_hand_over(
    request: Request, game_id: str, token: BearerDep, body: StandInIn
) -> Response:
    """Let the computer play the player to move, who has had no page or stream open and made
    no move for `PENTA_ABSENT_SECONDS`, until they open the game again (409 `present` while
    they have; 409 `presence_unknown` while the workers' bus is down or just back)."""
    stand_ins = _stand_ins(request)
    # A write, as a move is: on the loop, or in a thread if the database is busy.
    view = await patiently(lambda: stand_ins.hand_over(game_id, token, body.seat))
    answer = GameOut.of(view, str(request.base_url))
    return Response(answer.model_dump_json(), media_type="application/json")


@api.post(
    "/games/{game_id}/reactions",
    status_code=204,
    responses={
        **_REFUSALS,
        429: {"model": ErrorOut, "description": "Too many reactions: see Retry-After"},
    },
)
async def api_react(request: Request, game_id: str, token: BearerDep, body: ReactionIn) -> Response:
    """Show a quick reaction to everyone watching the game; a seated player only."""
    _reactions(request).react(game_id, token, body.reaction)
    return Response(status_code=204)
