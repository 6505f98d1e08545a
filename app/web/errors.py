"""Error responses: JSON ``{"error": {"code", "message"}}`` for the API, a page for people."""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException

from app import i18n
from app.service.errors import ServiceError
from app.web.templating import render


def install(app: FastAPI) -> None:
    """Register the handlers of service errors, validation errors and HTTP errors."""

    @app.exception_handler(ServiceError)
    async def service_error(request: Request, error: ServiceError) -> Response:
        return _respond(request, error.status, error.code, error.message)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in problem['loc'][1:]) or 'body'}: {problem['msg']}"
            for problem in error.errors()
        )
        return _respond(request, 422, "invalid", problems or "malformed request")

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        code = "not_found" if error.status_code == 404 else "http_error"
        return _respond(request, error.status_code, code, str(error.detail), error.headers)


def _respond(
    request: Request,
    status: int,
    code: str,
    message: str,
    headers: Mapping[str, str] | None = None,
) -> Response:
    if request.url.path.startswith("/api/") or (
        "text/html" not in request.headers.get("accept", "")
        and not request.headers.get("hx-request")
    ):
        return JSONResponse(
            {"error": {"code": code, "message": message}}, status_code=status, headers=headers
        )
    template = "fragments/flash.html" if request.headers.get("hx-request") else "error.html"
    if template == "fragments/flash.html":
        headers = {**(headers or {}), "HX-Reswap": "none"}
    html = render(
        request.app.state.templates,
        template,
        request=request,
        csrf_token=request.state.csrf_token,
        lang=i18n.current_language(),
        status=status,
        message=i18n.translate_error(code, message),
        error={"code": code, "message": i18n.translate_error(code, message)},
        oob=True,
    )
    return HTMLResponse(html, status_code=status, headers=headers)
