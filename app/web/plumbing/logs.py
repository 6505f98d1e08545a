"""What the server writes to its log: readable lines by default, JSON lines with
``PENTA_LOG_FORMAT=json``, and never a secret.

The private resume link, ``/games/<id>/resume/<secret>``, holds a seat's secret in its
path, and uvicorn's access log writes every path it serves. :class:`RedactSecrets` replaces
the secret with ``[redacted]`` in the records of uvicorn's and Penta's loggers before any
handler sees them. Bearer tokens and cookies travel in headers, which are never logged; no
log line carries a body (where a server seed or a new seat's token would be).

In JSON, every line is one object: ``time``, ``level``, ``logger``, ``message``, and for the
lines written while a request is served its ``request_id`` (the trusted proxy's
``X-Request-ID``, else made here), ``game`` and ``seat``. Each request ends with one
``app.requests`` line (method, route, path, status, duration): it replaces uvicorn's access
log, which says less.
"""

from __future__ import annotations

import logging
import re
import sys
from typing import Any

from pythonjsonlogger.json import JsonFormatter

from app.request_context import current

REDACTED = "[redacted]"
_RESUME = re.compile(r"(/games/[^/\s]+/resume/)[^/\s?#\"']+")
LOGGERS = ("uvicorn.access", "uvicorn.error", "uvicorn", "app")
JSON_LOGGERS = ("uvicorn", "uvicorn.error", "app")
"""The loggers a JSON handler replaces the handlers of (uvicorn.access is turned off)."""
JSON_FIELDS = ("asctime", "levelname", "name", "message")
RENAMED = {"asctime": "time", "levelname": "level", "name": "logger"}


def redact(text: str) -> str:
    """``text`` with the secret of every resume link replaced.

    >>> redact('"GET /games/Ab3/resume/s3cr3t-_x HTTP/1.1" 303')
    '"GET /games/Ab3/resume/[redacted] HTTP/1.1" 303'
    """
    return _RESUME.sub(rf"\g<1>{REDACTED}", text)


class RedactSecrets(logging.Filter):
    """Redacts resume links in a record's message and arguments."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(
                redact(argument) if isinstance(argument, str) else argument
                for argument in record.args
            )
        return True


class RequestFields(logging.Filter):
    """Gives a record written while a request is served its request id, game and seat."""

    def filter(self, record: logging.LogRecord) -> bool:
        facts = current()
        if facts is not None:
            record.request_id = facts.request_id
            if facts.game is not None:
                record.game = facts.game
            if facts.seat is not None:
                record.seat = facts.seat
        return True


def json_handler(stream: Any = None) -> logging.Handler:
    """A handler writing one JSON object a line to ``stream`` (stderr), redacted."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(
        JsonFormatter(
            list(JSON_FIELDS),
            rename_fields=RENAMED,
            datefmt="%Y-%m-%dT%H:%M:%S%z",
            json_ensure_ascii=False,
        )
    )
    handler.addFilter(RedactSecrets())
    handler.addFilter(RequestFields())
    return handler


def install(log_format: str = "text") -> None:
    """Add the redaction to uvicorn's and Penta's loggers (once, however many apps are
    made); with ``json``, write them as JSON lines and leave uvicorn's access log to
    :class:`~app.web.plumbing.request_log.RequestLog`."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(existing, RedactSecrets) for existing in logger.filters):
            logger.addFilter(RedactSecrets())
    if log_format != "json":
        return
    handler = json_handler()
    for name in JSON_LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.propagate = False
        if logger.level == logging.NOTSET or logger.level > logging.INFO:
            logger.setLevel(logging.INFO)
    logging.getLogger("uvicorn.access").disabled = True
