"""Penta: a Yahtzee-family dice game with an optimal computer player."""

__version__ = "0.3.0"
"""The one place the version is written: pyproject.toml reads it, and so do the page footer,
``/healthz``, the API and ``penta version``. CHANGELOG.md says what each version brought."""
