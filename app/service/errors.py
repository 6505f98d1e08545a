"""Typed service errors; the web layer maps each to its HTTP status."""

from __future__ import annotations


class ServiceError(Exception):
    """An action was refused; nothing was changed. ``code`` is stable, ``message`` explains."""

    status = 400

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


class UnavailableError(ServiceError):
    """Not possible yet (the computer's table is still being built); try again shortly."""

    status = 503
