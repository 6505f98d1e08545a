"""Game actions counted and timed for the operators (:mod:`app.metrics`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from time import perf_counter
from typing import ParamSpec, TypeVar

from app.metrics import ACTION_SECONDS, ACTIONS
from app.service.errors import ServiceError
from app.store.database import DatabaseBusyError, on_event_loop

P = ParamSpec("P")
R = TypeVar("R")


def outcome_of(error: BaseException) -> tuple[str, str]:
    """The ``outcome`` and ``code`` labels of an action that raised ``error``."""
    if isinstance(error, ServiceError):
        return "refused", error.code
    return "error", type(error).__name__


def measured(kind: str, action: Callable[P, R]) -> Callable[P, R]:
    """``action``, counted in :data:`ACTIONS` and timed in :data:`ACTION_SECONDS` as
    ``kind``. A change the store refused on the event loop without waiting is not counted:
    it is made again in a thread (:func:`app.store.patience.patiently`), and counted
    there, ``busy`` if it still could not be made."""
    timer = ACTION_SECONDS.labels(kind)
    succeeded = ACTIONS.labels(kind, "ok", "")

    @functools.wraps(action)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        started = perf_counter()
        try:
            result = action(*args, **kwargs)
        except DatabaseBusyError:
            if on_event_loop():
                raise  # refused before anything was read: tried again in a thread (patiently)
            timer.observe(perf_counter() - started)
            ACTIONS.labels(kind, "busy", "busy").inc()
            raise
        except BaseException as error:
            timer.observe(perf_counter() - started)
            ACTIONS.labels(kind, *outcome_of(error)).inc()
            raise
        timer.observe(perf_counter() - started)
        succeeded.inc()
        return result

    return run


def counted(kind: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """:func:`measured` as a decorator, for a method."""
    return functools.partial(measured, kind)
