"""Error responses: JSON ``{"error": {"code", "message"}}`` for the API, a page for people."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException

from app import i18n
from app.service.errors import ServiceError
from app.store.database import DatabaseBusyError
from app.web.plumbing.middleware import API_PREFIX
from app.web.plumbing.templating import render

BUSY_MESSAGE = "the server is busy: try again in a moment"
STORAGE_MESSAGE = "the server cannot save changes right now: try again later"
logger = logging.getLogger(__name__)


def install(app: FastAPI) -> None:
    """Register the handlers of service errors, validation errors and HTTP errors."""

    @app.exception_handler(ServiceError)
    async def service_error(request: Request, error: ServiceError) -> Response:
        return service_error_response(request, error)

    @app.exception_handler(DatabaseBusyError)
    async def busy(request: Request, _error: DatabaseBusyError) -> Response:
        message = i18n.translate_error("busy", BUSY_MESSAGE)
        return error_response(request, 503, "busy", message, {"Retry-After": "1"})

    @app.exception_handler(OperationalError)
    async def storage(request: Request, error: OperationalError) -> Response:
        # Disk full, read-only, I/O error: nothing was saved (the transaction rolled back),
        # and the health check says why until a change is saved again.
        logger.error("a change could not be saved: %s", error.orig)
        message = i18n.translate_error("storage", STORAGE_MESSAGE)
        return error_response(request, 503, "storage", message, {"Retry-After": "5"})

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


def service_error_response(request: Request, error: ServiceError) -> Response:
    """The answer to a refusal of the service (or of a limit), with ``Retry-After`` if known."""
    headers = None
    if error.retry_after is not None:
        headers = {"Retry-After": str(error.retry_after)}
    return error_response(request, error.status, error.code, error.message, headers)


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
