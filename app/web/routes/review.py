"""Game review pages and API: each decision against the optimal strategy, with a chart."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.web.chart import expected_chart
from app.web.deps import ServiceDep, TemplatesDep
from app.web.plumbing.hosts import base_url
from app.web.schemas import DecisionOut, GameOut, PlayerReviewOut, ReviewOut
from app.web.shared import ERROR_RESPONSES, page_context

router = APIRouter()


@router.get("/games/{game_id}/review", response_class=HTMLResponse, include_in_schema=False)
def review_page(
    request: Request, game_id: str, service: ServiceDep, templates: TemplatesDep
) -> Response:
    """Every decision of every player, the points each cost, luck, and the chart."""
    view, players = service.review(game_id)
    context = page_context(
        request, game=view, reviews=players, chart=expected_chart(players), me=None
    )
    return templates.TemplateResponse(request, "review.html", context)


@router.get(
    "/api/v1/games/{game_id}/review",
    tags=["games"],
    responses=ERROR_RESPONSES,  # type: ignore[arg-type]
)
def review_api(request: Request, game_id: str, service: ServiceDep) -> ReviewOut:
    """The review of a finished game (409 before the end)."""
    view, players = service.review(game_id)
    return ReviewOut(
        game=GameOut.of(view, base_url(request)),
        players=[
            PlayerReviewOut(
                seat=player.seat,
                name=view.players[player.seat].name,
                total=player.total,
                start_expected=player.start_expected,
                expected_loss=player.expected_loss,
                optimal_share=player.optimal_share,
                luck=player.luck,
                used_hints=view.players[player.seat].used_hints,
                costliest=[DecisionOut.of(decision) for decision in player.costliest],
                decisions=[DecisionOut.of(decision) for decision in player.decisions],
            )
            for player in players
        ],
    )
