"""Jinja2 templates with gettext: one environment, the language taken from the context."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader
from jinja2.ext import Extension
from jinja2.lexer import TOKEN_DATA, Token, TokenStream

from app import __version__, i18n
from app.rules import (
    BOXES,
    LOWER_BOXES,
    MAX_ROLLS,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    UPPER_BOXES,
)
from app.service.reactions import REACTIONS
from app.settings import ROOT
from app.web.assets import ASSETS
from app.web.suggestion import suggest

_LINE_BREAKS = re.compile(r"\s*\n\s*")


class OneLine(Extension):
    """Each line break of the templates' own HTML, with the indentation around it, becomes
    one space as the template compiles (as HTML reads it): a rendering is one line, as a
    server-sent event's ``data:`` wants it, with no work at each rendering. What a value
    brings is left as it is; ``{% trans %}`` blocks are trimmed alike (the i18n policy)."""

    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        for token in stream:
            if token.type == TOKEN_DATA and "\n" in token.value:
                token = Token(token.lineno, TOKEN_DATA, _LINE_BREAKS.sub(" ", token.value))
            yield token


def create_templates() -> Jinja2Templates:
    """The templates of ``templates/``, autoescaped, with translation callables installed.

    Each template is compiled once and kept: they are part of the release, so they are not
    checked for changes on disk (``auto_reload``, on by default, made every rendering stat
    each file it includes, 11 calls for a live board: 40 % of its time). After editing a
    template, restart the server."""
    environment = Environment(
        loader=FileSystemLoader(ROOT / "templates"),
        auto_reload=False,
        autoescape=True,
        extensions=["jinja2.ext.i18n", OneLine],
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.install_gettext_callables(  # type: ignore[attr-defined]
        i18n.gettext, i18n.ngettext, newstyle=True
    )
    # {% trans %} blocks are looked up with their whitespace collapsed, as babel.cfg extracts them.
    environment.policies["ext.i18n.trimmed"] = True
    environment.globals.update(_globals())
    return Jinja2Templates(env=environment)


def _globals() -> dict[str, Any]:
    return {
        "penta_version": __version__,
        "box_label": i18n.box_label,
        "face_names": i18n.FACE_NAMES,
        "languages": i18n.LANGUAGES,
        "BOXES": BOXES,
        "UPPER_BOXES": UPPER_BOXES,
        "LOWER_BOXES": LOWER_BOXES,
        "UPPER_BONUS": UPPER_BONUS,
        "MAX_ROLLS": MAX_ROLLS,
        # The key that chooses each box, down the sheet: A for Ones to M for Penta (R rolls).
        "box_keys": {box: chr(ord("a") + index) for index, box in enumerate(BOXES)},
        "UPPER_BONUS_THRESHOLD": UPPER_BONUS_THRESHOLD,
        "reactions": REACTIONS,
        "suggest": suggest,
        "static": ASSETS.url,
    }


def render(templates: Jinja2Templates, name: str, **context: Any) -> str:
    """``name`` rendered to a string in the current language."""
    return templates.env.get_template(name).render(**context)
