"""Error responses: JSON ``{"error": {"code", "message"}}`` for the API, a page for people."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException

from app import i18n, metrics
from app.rules.refusals import english
from app.service.errors import ServiceError
from app.store.database import DatabaseBusyError
from app.web.plumbing.middleware import API_PREFIX
from app.web.templating import render

FRAMEWORK_REFUSALS = {400: "malformed", 404: "page_not_found", 405: "method_not_allowed"}
"""The refusal shown to people for an HTTP error of the framework, by status (the API keeps
the framework's own text)."""
logger = logging.getLogger(__name__)


class HTTPRefusal(HTTPException):
    """A refusal raised where only an :class:`HTTPException` will do (while the framework
    reads a body), with its API ``code`` and the ``reason`` and ``params`` of its text."""

    def __init__(self, status: int, code: str, reason: str | None = None, /, **params: object):
        self.code = code
        self.reason = reason or code
        self.params = params
        super().__init__(status, english(self.reason, params))


def install(app: FastAPI) -> None:
    """Register the handlers of service errors, validation errors and HTTP errors."""

    @app.exception_handler(ServiceError)
    async def service_error(request: Request, error: ServiceError) -> Response:
        return service_error_response(request, error)

    # The server's own trouble is told in the reader's language, to the API's clients too.
    @app.exception_handler(DatabaseBusyError)
    async def busy(request: Request, _error: DatabaseBusyError) -> Response:
        metrics.DATABASE_BUSY.inc()
        message = i18n.explain("busy")
        return error_response(request, 503, "busy", message, {"Retry-After": "1"})

    @app.exception_handler(OperationalError)
    async def storage(request: Request, error: OperationalError) -> Response:
        # Disk full, read-only, I/O error: nothing was saved (the transaction rolled back),
        # and the health check says why until a change is saved again.
        logger.error("a change could not be saved: %s", error.orig)
        message = i18n.explain("storage")
        return error_response(request, 503, "storage", message, {"Retry-After": "5"})

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in problem['loc'][1:]) or 'body'}: {problem['msg']}"
            for problem in error.errors()
        )
        message = problems or "malformed request"
        return error_response(request, 422, "invalid", message, shown=i18n.explain("invalid"))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        if isinstance(error, HTTPRefusal):
            return refusal_response(
                request, error.status_code, error.code, error.reason, error.params, error.headers
            )
        codes = {400: "malformed", 404: "not_found", 413: "too_large"}
        code = codes.get(error.status_code, "http_error")
        reason = FRAMEWORK_REFUSALS.get(error.status_code)
        shown = i18n.explain(reason) if reason else None
        detail = str(error.detail)
        return error_response(request, error.status_code, code, detail, error.headers, shown=shown)


def service_error_response(request: Request, error: ServiceError) -> Response:
    """The answer to a refusal of the service (or of a limit), with ``Retry-After`` if known."""
    headers = None
    if error.retry_after is not None:
        headers = {"Retry-After": str(error.retry_after)}
    return refusal_response(request, error.status, error.code, error.reason, error.params, headers)


def refusal_response(
    request: Request,
    status: int,
    code: str,
    reason: str | None = None,
    params: Mapping[str, object] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """The answer to the refusal ``reason`` (``code`` unless given): English for the API,
    the reader's language for people."""
    reason = reason or code
    if metrics.is_limit(status, code):
        metrics.LIMIT_REFUSALS.labels(reason).inc()
    params = params or {}
    message = english(reason, params)
    shown = i18n.explain(reason, params)
    return error_response(request, status, code, message, headers, shown=shown)


def error_response(
    request: Request,
    status: int,
    code: str,
    message: str,
    headers: Mapping[str, str] | None = None,
    *,
    shown: str | None = None,
) -> Response:
    """The answer to a refused request: ``{"error": {"code", "message"}}`` for the API and
    for clients that do not ask for HTML, a flash fragment for htmx, else an error page
    saying ``shown`` (the message in the reader's language; ``message`` if not given)."""
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
        message=shown or message,
        error={"code": code, "message": shown or message},
        oob=True,
    )
    return HTMLResponse(html, status_code=status, headers=headers)
