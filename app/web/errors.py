"""Error responses: JSON ``{"error": {"code", "message"}}`` for the API, a page for people."""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException

from app import i18n
from app.service.errors import ServiceError
from app.web.middleware import API_PREFIX
from app.web.templating import render


def install(app: FastAPI) -> None:
    """Register the handlers of service errors, validation errors and HTTP errors."""

    @app.exception_handler(ServiceError)
    async def service_error(request: Request, error: ServiceError) -> Response:
        headers = None
        retry_after = getattr(error, "retry_after", None)  # the rate limits' refusals
        if retry_after is not None:
            headers = {"Retry-After": str(retry_after)}
        return error_response(request, error.status, error.code, error.message, headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in problem['loc'][1:]) or 'body'}: {problem['msg']}"
            for problem in error.errors()
        )
        return error_response(request, 422, "invalid", problems or "malformed request")

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        codes = {400: "malformed", 404: "not_found", 413: "too_large"}
        code = codes.get(error.status_code, "http_error")
        return error_response(request, error.status_code, code, str(error.detail), error.headers)


def error_response(
    request: Request,
    status: int,
    code: str,
    message: str,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """The answer to a refused request: ``{"error": {"code", "message"}}`` for the API and
    for clients that do not ask for HTML, a flash fragment for htmx, else an error page."""
    if request.url.path.startswith(API_PREFIX) or (
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
