"""Typed service errors; the web layer maps each to its HTTP status."""

from __future__ import annotations

from typing import Self

from app.rules import RulesError
from app.rules.refusals import english


class ServiceError(Exception):
    """An action was refused; nothing was changed.

    ``code`` is the API's stable code (``error.code``); ``reason`` (the code itself unless
    given) and ``params`` name the refusal's text in :mod:`app.rules.refusals`, from which the
    English ``message`` and every translation are rendered.
    """

    status = 400
    retry_after: int | None = None
    """Seconds after which trying again may succeed (sent as ``Retry-After``), if known."""

    def __init__(self, code: str, reason: str | None = None, /, **params: object) -> None:
        self.code = code
        self.reason = reason or code
        self.params = params
        self.message = english(self.reason, params)
        super().__init__(self.message)

    @classmethod
    def of_rules(cls, code: str, error: RulesError) -> Self:
        """The refusal of the rules' ``error`` under the API's ``code``."""
        return cls(code, error.code, **error.params)


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

    def __init__(
        self, code: str, reason: str | None = None, /, retry_after: int | None = None
    ) -> None:
        super().__init__(code, reason)
        self.retry_after = retry_after


class UnavailableError(ServiceError):
    """Not possible yet (the computer's table is still being built); try again shortly."""

    status = 503
