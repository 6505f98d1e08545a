"""Keep seat secrets out of the logs.

The private resume link, ``/games/<id>/resume/<secret>``, holds a seat's secret in its
path, and uvicorn's access log writes every path it serves. :class:`RedactSecrets` replaces
the secret with ``[redacted]`` in the records of uvicorn's loggers before any handler sees
them. Bearer tokens travel in a header, which uvicorn never logs.
"""

from __future__ import annotations

import logging
import re

REDACTED = "[redacted]"
_RESUME = re.compile(r"(/games/[^/\s]+/resume/)[^/\s?#\"']+")
LOGGERS = ("uvicorn.access", "uvicorn.error", "uvicorn")


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


def install() -> None:
    """Add the filter to uvicorn's loggers (once, however many apps are made)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(existing, RedactSecrets) for existing in logger.filters):
            logger.addFilter(RedactSecrets())
