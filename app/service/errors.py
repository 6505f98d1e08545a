"""Typed service errors; the web layer maps each to its HTTP status."""

from __future__ import annotations


class ServiceError(Exception):
    """An action was refused; nothing was changed. ``code`` is stable, ``message`` explains."""

    status = 400
    retry_after: int | None = None
    """Seconds after which trying again may succeed (sent as ``Retry-After``), if known."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class NotFoundError(ServiceError):
    """No such game."""

    status = 404


class ForbiddenError(ServiceError):
    """Not your seat, or not your turn."""

    status = 403


class ConflictError(ServiceError):
    """Well formed but not allowed now: illegal by the rules, stale, or the wrong phase."""

    status = 409


class InvalidError(ServiceError):
    """Malformed input."""

    status = 422


class TooManyError(ServiceError):
    """A per-turn or per-seat limit is reached: 429."""

    status = 429

    def __init__(self, code: str, message: str, retry_after: int | None = None) -> None:
        super().__init__(code, message)
        self.retry_after = retry_after


class UnavailableError(ServiceError):
    """Not possible yet (the computer's table is still being built); try again shortly."""

    status = 503
