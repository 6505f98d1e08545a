"""Typed errors of the rules: a malformed action differs from an illegal one.

Both are :class:`ValueError`, so a caller may catch :class:`RulesError` for either:

>>> from app.rules import Game, Roll, Score
>>> try:
...     Game.new(1).apply(Score("chance"))
... except RulesError as error:
...     print(type(error).__name__, error)
IllegalActionError roll before choosing a box
>>> try:
...     Roll((1, 2, 3, 4, 7))
... except RulesError as error:
...     print(type(error).__name__, error)
MalformedActionError a die shows 1 to 6, not 7

Each carries a stable ``code`` and its ``params``, from which every language renders it
(:mod:`app.rules.refusals`); its text is the English one:

>>> try:
...     Roll((1, 2, 3, 4, 7))
... except RulesError as error:
...     print(error.code, error.params)
die_face {'value': 7}
"""

from __future__ import annotations

from app.rules.refusals import english


class RulesError(ValueError):
    """Base class of every error the rules raise: a refusal ``code`` with its ``params``."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(english(code, params))
        self.code = code
        self.params = params


class MalformedActionError(RulesError):
    """The action is not well formed (a die of 7, six dice, an unknown box), whatever the state."""


class IllegalActionError(RulesError):
    """The action is well formed but not allowed in this state (a fourth roll, a used box)."""
