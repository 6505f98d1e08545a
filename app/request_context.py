"""What the log knows of the request being served: its id, and the game and seat it acts
in once they are known (set by the web layer and by the service, read by the log's
:class:`~app.web.plumbing.logs.RequestFields`).

The facts are one mutable object per request in a context variable, so that what a change
made in a worker thread learns (its seat) is seen by the request's last log line too.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass


@dataclass
class RequestFacts:
    request_id: str
    game: str | None = None
    seat: int | None = None


_CURRENT: ContextVar[RequestFacts | None] = ContextVar("penta_request", default=None)


def current() -> RequestFacts | None:
    """The facts of the request being served here, if any."""
    return _CURRENT.get()


def begin(request_id: str) -> RequestFacts:
    """Start the facts of a request (in the task that serves it)."""
    facts = RequestFacts(request_id)
    _CURRENT.set(facts)
    return facts


def note_seat(game: str, seat: int) -> None:
    """The request acts in ``game`` as ``seat``."""
    facts = _CURRENT.get()
    if facts is not None:
        facts.game = game
        facts.seat = seat
