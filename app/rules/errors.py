"""Typed errors of the rules: a malformed action differs from an illegal one."""


class RulesError(ValueError):
    """Base class of every error the rules raise."""


class MalformedActionError(RulesError):
    """The action is not well formed (a die of 7, six dice, an unknown box), whatever the state."""


class IllegalActionError(RulesError):
    """The action is well formed but not allowed in this state (a fourth roll, a used box)."""
