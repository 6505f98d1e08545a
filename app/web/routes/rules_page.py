"""The rules page: the game's rules in the reader's language, box names as on the scoresheet."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.web.deps import TemplatesDep
from app.web.shared import page_context

router = APIRouter(include_in_schema=False)


@router.get("/rules", response_class=HTMLResponse)
def rules(request: Request, templates: TemplatesDep) -> Response:
    return templates.TemplateResponse(request, "rules.html", page_context(request))
