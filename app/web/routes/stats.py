"""The statistics page."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.web.deps import ServiceDep, TemplatesDep
from app.web.shared import page_context

router = APIRouter(include_in_schema=False)


@router.get("/stats", response_class=HTMLResponse)
def stats_page(request: Request, service: ServiceDep, templates: TemplatesDep) -> Response:
    """Games finished, wins by seat position and draws, averages and the best sheets."""
    figures = service.statistics()
    return templates.TemplateResponse(request, "stats.html", page_context(request, stats=figures))
