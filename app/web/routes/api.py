"""The bot API: JSON over the same service as the pages, seats held by bearer tokens."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Request
from fastapi.responses import Response
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from app import __version__
from app.service.errors import ForbiddenError
from app.service.play import Expect
from app.service.views import GameView
from app.store.patience import patiently
from app.web import identity
from app.web.deps import BearerDep, ServiceDep, TokenRoute
from app.web.live import LiveViews
from app.web.plumbing.hosts import base_url
from app.web.plumbing.limits import CreateLimit, JoinLimit
from app.web.schemas import (
    AdviceOut,
    BoxAdvice,
    ClientSeedIn,
    CreateIn,
    GameOut,
    JoinIn,
    LogOut,
    RollIn,
    ScoreIn,
    SeatOut,
    StartIn,
    VersionIn,
)
from app.web.shared import ERROR_RESPONSES, RATE_LIMITED

router = APIRouter(
    prefix="/api/v1",
    tags=["games"],
    responses=ERROR_RESPONSES,  # type: ignore[arg-type]
    route_class=TokenRoute,
)

# Routes that create, start, read or play a game are ``async def`` (a move is cheaper than a
# trip through the thread pool); joining and adding a computer, through the ORM, stay ``def``.
# Why, with figures: docs/performance.md, "Web layer".


def _out(request: Request, view: GameView) -> GameOut:
    return GameOut.of(view, base_url(request))


def _json(answer: BaseModel, status_code: int = 200) -> Response:
    """``answer`` as JSON, ready-made: handed a model, FastAPI would validate and encode
    again what the service has just built (docs/performance.md)."""
    return Response(answer.model_dump_json(), status_code, media_type="application/json")


def _game(request: Request, view: GameView) -> Response:
    return _json(_out(request, view))


def _moved(request: Request, view: GameView) -> Response:
    """The answer to a change: the JSON of the version it committed, encoded once for this
    answer and the bots' streams (a read is encoded anew: its turn timer has run on)."""
    live: LiveViews = request.app.state.live_views
    return Response(live.api(view, base_url(request)).parts[0], media_type="application/json")


@router.post(
    "/games",
    status_code=201,
    response_model=SeatOut,
    dependencies=[CreateLimit],
    responses=RATE_LIMITED,  # type: ignore[arg-type]
)
async def create_game(
    request: Request,
    service: ServiceDep,
    body: CreateIn,
    player: identity.PlayerTokenHeader = None,
) -> Response:
    """A waiting game with you as host in seat 0; keep the token, it is your seat. A
    ``public`` game is listed for anyone to join or watch (with a 60 s turn timer if none
    is given), and rated when people finish it."""
    pace = None if body.computer_pace == "normal" else body.computer_pace
    person_id = await run_in_threadpool(identity.api_player, request, player) if player else None
    view, token = await patiently(
        lambda: service.create(
            body.name,
            turn_seconds=body.turn_seconds,
            computer_pace=pace,
            public=body.public,
            person_id=person_id,
            language=body.language,
        )
    )
    return _json(SeatOut(game=_out(request, view), token=token), 201)


@router.get("/games/{game_id}", response_model=GameOut)
async def get_game(request: Request, game_id: str, service: ServiceDep) -> Response:
    """The game as it is now."""
    return _game(request, service.get(game_id))


@router.post("/games/{game_id}/start", response_model=GameOut)
async def start_game(
    request: Request,
    game_id: str,
    service: ServiceDep,
    token: BearerDep,
    body: Annotated[StartIn | None, Body()] = None,
) -> Response:
    """Start the game (host only), with the host's optional ``client_seed`` for the dice."""
    seed = body.client_seed if body else None
    return _moved(request, await patiently(lambda: service.start(game_id, token, client_seed=seed)))


@router.put("/games/{game_id}/client_seed", response_model=GameOut)
async def set_client_seed(
    request: Request, game_id: str, service: ServiceDep, token: BearerDep, body: ClientSeedIn
) -> Response:
    """Change your seat's seed for the dice while the game waits (409 once it has started)."""
    return _game(
        request,
        await patiently(lambda: service.set_client_seed(game_id, token, body.client_seed)),
    )


@router.get("/games/{game_id}/log", response_model=LogOut)
async def roll_log(game_id: str, service: ServiceDep) -> Response:
    """Every roll of the game with its holds and dice, and the seeds: what a verifier
    recomputes (docs/fairness.md) once the game is over and the server seed revealed."""
    view, rolls = service.roll_log(game_id)
    return _json(LogOut.of(view, rolls))


@router.post("/games/{game_id}/roll", response_model=GameOut)
async def roll(
    request: Request, game_id: str, service: ServiceDep, token: BearerDep, body: RollIn
) -> Response:
    """Roll the dice not in ``hold`` (``[]`` on the first roll)."""
    expect = Expect(version=body.version)
    view = await patiently(lambda: service.roll(game_id, token, hold=body.hold, expect=expect))
    return _moved(request, view)


@router.post("/games/{game_id}/score", response_model=GameOut)
async def score(
    request: Request, game_id: str, service: ServiceDep, token: BearerDep, body: ScoreIn
) -> Response:
    """Record the dice in a box."""
    expect = Expect(version=body.version)
    view = await patiently(lambda: service.score(game_id, token, body.box.value, expect=expect))
    return _moved(request, view)


@router.post("/games/{game_id}/auto", response_model=GameOut)
async def auto(
    request: Request,
    game_id: str,
    service: ServiceDep,
    token: BearerDep,
    body: Annotated[VersionIn | None, Body()] = None,
) -> Response:
    """After the third roll, record the dice in the box the computer would choose."""
    version = body.version if body else None
    expect = Expect(version=version)
    return _moved(request, await patiently(lambda: service.auto(game_id, token, expect=expect)))


@router.get("/games/{game_id}/advice")
async def advice(game_id: str, service: ServiceDep, token: BearerDep) -> AdviceOut:
    """The optimal player's advice for the player to move (that player's token only)."""
    optimal = service.strategy.is_ready  # read first: it only ever turns true
    result = service.advice(game_id, token)
    if result is None:
        raise ForbiddenError("not_your_turn", "advice_not_yours")
    return AdviceOut(
        best_box=result.best_box,
        best_hold=list(result.best_hold) if result.best_hold is not None else None,
        boxes={
            box: BoxAdvice(points=points, expected=expected)
            for box, (points, expected) in result.boxes.items()
        },
        optimal=optimal,
    )


@router.post(
    "/games/{game_id}/players",
    status_code=201,
    response_model=SeatOut,
    dependencies=[JoinLimit],
    responses=RATE_LIMITED,  # type: ignore[arg-type]
)
def join(
    request: Request,
    game_id: str,
    service: ServiceDep,
    body: JoinIn,
    player: identity.PlayerTokenHeader = None,
) -> Response:
    """Take a seat in a waiting game (409 once it has started)."""
    person_id = identity.api_player(request, player)
    view, token = service.join(
        game_id, body.name, client_seed=body.client_seed, person_id=person_id
    )
    return _json(SeatOut(game=_out(request, view), token=token), 201)


@router.post("/games/{game_id}/computers", response_model=GameOut)
def add_computer(request: Request, game_id: str, service: ServiceDep, token: BearerDep) -> Response:
    """Add a computer player (host only, while waiting)."""
    return _game(request, service.add_computer(game_id, token))


@router.delete("/games/{game_id}/players/{seat}", response_model=GameOut)
def remove_seat(
    request: Request, game_id: str, seat: int, service: ServiceDep, token: BearerDep
) -> Response:
    """Remove a computer or a player (host only, while waiting; not the host's own seat):
    the seats after it move up one."""
    return _game(request, service.remove_seat(game_id, token, seat))


class VersionOut(BaseModel):
    """The version of Penta serving this API (CHANGELOG.md says what each one brought)."""

    version: str


@router.get("/version", response_model=VersionOut)
async def version() -> Response:
    """The version of Penta behind this API."""
    return _json(VersionOut(version=__version__))
