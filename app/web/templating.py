"""Jinja2 templates with gettext: one environment per language, each of whose templates has
the translation of every message written in it in place (a message from a variable, or a
plural, is looked up as it renders, in the language of the context)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, MutableMapping
from typing import Any

from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader, Template, nodes
from jinja2.ext import Extension
from jinja2.lexer import TOKEN_DATA, Token, TokenStream
from jinja2.visitor import NodeTransformer
from markupsafe import Markup
from starlette.requests import Request
from starlette.templating import _TemplateResponse

from app import __version__, i18n
from app.rules import (
    BOXES,
    LOWER_BOXES,
    MAX_ROLLS,
    UPPER_BONUS,
    UPPER_BONUS_THRESHOLD,
    UPPER_BOXES,
    Box,
)
from app.service.reactions import REACTIONS
from app.settings import ROOT
from app.web.assets import ASSETS
from app.web.compression import gzipped
from app.web.suggestion import suggest

try:  # the escape markupsafe.escape wraps: its C speedup, else its Python one (as it imports it)
    from markupsafe._speedups import _escape_inner
except ImportError:  # pragma: no cover (markupsafe without its C speedups)
    from markupsafe._native import _escape_inner

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


class TranslatedInPlace(NodeTransformer):
    """Writes the translation of each ``_("message")`` (and ``{% trans %}`` block) in place, as
    the newstyle gettext of ``jinja2.ext.i18n`` would give it at every rendering: the message
    marked safe, formatted with its keywords (escaped) or, without any, with none."""

    def __init__(self, code: str) -> None:
        self.translations = i18n.translations(code)

    def visit_Call(self, call: nodes.Call) -> nodes.Node:
        node = self.generic_visit(call)
        if not (
            isinstance(node, nodes.Call)
            and isinstance(node.node, nodes.Name)
            and node.node.name in ("_", "gettext")
            and len(node.args) == 1
            and isinstance(node.args[0], nodes.Const)
            and isinstance(node.args[0].value, str)
            and node.dyn_args is None
            and node.dyn_kwargs is None
        ):
            return node
        message = self.translations.ugettext(node.args[0].value)
        if node.kwargs:
            conversions = _conversions(message)
            if conversions is None:  # as the newstyle ``_()`` formats it, at every rendering
                keywords = [
                    nodes.Pair(nodes.Const(keyword.key), keyword.value) for keyword in node.kwargs
                ]
                return nodes.Mod(nodes.MarkSafe(nodes.Const(message)), nodes.Dict(keywords))
            # ``Markup(message) % keywords`` as Markup's ``%`` makes it, each keyword through a
            # filter (a plain call in the compiled code: escaped for ``%s``, ``int`` for
            # ``%d``) and the message marked safe once formatted. Markup's own ``%`` wraps each
            # keyword in a helper object of Python: a fifth of the dice tray's rendering.
            keywords = [
                nodes.Pair(
                    nodes.Const(keyword.key),
                    nodes.Filter(
                        keyword.value,
                        MESSAGE_FILTERS[conversions.get(keyword.key, "s")],
                        [],
                        [],
                        None,
                        None,
                    ),
                )
                for keyword in node.kwargs
            ]
            return nodes.MarkSafe(nodes.Mod(nodes.Const(message), nodes.Dict(keywords)))
        try:  # the catalogs' messages are the templates' own text, trusted as they are
            return nodes.MarkSafe(nodes.Const(str(_safe(message))))
        except (KeyError, TypeError, ValueError):
            return node  # a message that wants keywords it is not given fails as it renders


def escape_output(value: object, /) -> str:
    """What ``{{ value }}`` writes into a template's output: markupsafe's ``escape`` (the
    text escaped; an object with ``__html__`` as it says), as a plain ``str``, not a
    ``Markup``. Jinja escapes each value it writes and only joins the pieces: a block, a
    macro or a ``{% set %}`` makes its joined output ``Markup`` itself. Making every piece
    a ``Markup`` (a Python ``__new__`` each) was a fifth of a board's rendering: a
    scoresheet writes 211 values (docs/performance.md, "What a rendering spends")."""
    if type(value) is str:
        return _escape_inner(value)
    if type(value) is int:  # (not bool: its str is its name, escaped alike)
        return str(value)
    html = getattr(value, "__html__", None)
    if html is not None:
        said = html()
        # (What __html__ says is HTML by its contract: markupsafe takes it so.)
        return said if type(said) in (str, Markup) else str(Markup(said))  # noqa: S704
    return _escape_inner(str(value))


MESSAGE_TEXT, MESSAGE_NUMBER = "message_text", "message_number"
MESSAGE_FILTERS = {"s": MESSAGE_TEXT, "d": MESSAGE_NUMBER, "i": MESSAGE_NUMBER}
"""The filter :class:`TranslatedInPlace` writes a message's keyword through, by the conversion
the message formats it with, as ``Markup``'s ``%`` takes it: ``%s`` the keyword escaped (what
has ``__html__`` as it says), ``%d`` its ``int``."""
_CONVERSION = re.compile(r"%(?:\(([^)]*)\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?(.)", re.DOTALL)


def _conversions(message: str) -> dict[str, str] | None:
    """Each keyword's conversion in ``message`` (``s``, ``d`` or ``i``); None if it formats
    one otherwise (``%r``, a width, a keyword two ways...), which is then left to ``Markup``.

    >>> _conversions("%(name)s scored %(points)d: 100%%")
    {'name': 's', 'points': 'd'}
    >>> _conversions("%(box)r"), _conversions("%(n)5d"), _conversions("%(n)s %(n)d")
    (None, None, None)
    """
    found: dict[str, str] = {}
    for match in _CONVERSION.finditer(message):
        key, conversion = match.groups()
        if match.group(0) == "%%":
            continue
        if key is None or conversion not in MESSAGE_FILTERS or match.end(1) + 2 != match.end():
            return None
        if found.setdefault(key, conversion) != conversion:
            return None
    return found


def _no_globals_of_its_own(globals: MutableMapping[str, Any] | None) -> None:
    if globals is not None:
        raise TypeError("a template here takes no globals of its own")


class PlainOutputTemplate(Template):
    """A template whose output escapes each value with :func:`escape_output`: the name
    ``escape`` that Jinja's compiled code writes every ``{{ value }}`` through (and uses for
    nothing else) is rebound in the template's module."""

    @classmethod
    def from_code(
        cls,
        environment: Environment,
        code: Any,
        globals: Any,
        uptodate: Any = None,
    ) -> Template:
        template = super().from_code(environment, code, globals, uptodate)
        template.root_render_func.__globals__["escape"] = escape_output
        return template


class LanguageEnvironment(Environment):
    """An environment whose templates are compiled with one language's messages in place."""

    def __init__(self, code: str, **options: Any) -> None:
        super().__init__(**options)
        self.in_place = TranslatedInPlace(code)

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals: the environment's own where it is given none of its own.
        (Jinja's ``ChainMap`` over them is copied into each rendering's context a key at a
        time in Python: 13 % of a live fragment's rendering.) Jinja writes into a template's
        globals only those a later load gives it, which would then reach every template:
        so a template is loaded with none (:meth:`get_template`)."""
        if d is None:
            return self.globals
        return super().make_globals(d)

    def get_template(
        self,
        name: str | Template,
        parent: str | None = None,
        globals: MutableMapping[str, Any] | None = None,
    ) -> Template:
        """A template, loaded with no globals of its own (``TypeError`` if given some: set
        them on the environment); :meth:`select_template` likewise, and Jinja's
        ``get_or_select_template`` goes through the two."""
        _no_globals_of_its_own(globals)
        return super().get_template(name, parent)

    def select_template(
        self,
        names: Iterable[str | Template],
        parent: str | None = None,
        globals: MutableMapping[str, Any] | None = None,
    ) -> Template:
        _no_globals_of_its_own(globals)
        return super().select_template(names, parent)

    def compile(
        self,
        source: str | nodes.Template,
        name: str | None = None,
        filename: str | None = None,
        raw: bool = False,
        defer_init: bool = False,
    ) -> Any:
        if isinstance(source, str):
            template: nodes.Template = self.in_place.visit(self.parse(source, name, filename))
            template.set_environment(self)
            source = template
        # (raw is a bool here, where the overloads want a literal True or False.)
        return super().compile(source, name, filename, raw, defer_init)  # type: ignore[call-overload]


class Templates(Jinja2Templates):
    """The templates of ``templates/``, one environment per language (``env`` is English's):
    a template is taken from the environment of the language being served."""

    def __init__(self, *, in_place: bool = True, plain_output: bool = True) -> None:
        self.environments = {
            code: _environment(code, in_place, plain_output) for code in i18n.LANGUAGES
        }
        super().__init__(env=self.environments[i18n.DEFAULT_LANGUAGE])

    def get_template(self, name: str) -> Template:
        return self.environments[i18n.current_language().code].get_template(name)

    def TemplateResponse(
        self, request: Request, name: str, *arguments: Any, **options: Any
    ) -> _TemplateResponse:
        """The page, gzipped where the browser accepts it (:mod:`app.web.compression`)."""
        return gzipped(request, super().TemplateResponse(request, name, *arguments, **options))


def create_templates(*, in_place: bool = True, plain_output: bool = True) -> Templates:
    """The templates, autoescaped, with translation callables installed (``in_place``: each
    environment writes its language's messages in place as it compiles a template;
    ``plain_output``: they write each value escaped as a plain ``str``). The tests turn both
    off to compare the pages with what Jinja alone makes of the templates."""
    return Templates(in_place=in_place, plain_output=plain_output)


def _environment(code: str, in_place: bool, plain_output: bool) -> Environment:
    """Each template is compiled once and kept: they are part of the release, so they are not
    checked for changes on disk (``auto_reload``, on by default, made every rendering stat
    each file it includes, 11 calls for a live board: 40 % of its time). After editing a
    template, restart the server."""
    options: dict[str, Any] = {
        "loader": FileSystemLoader(ROOT / "templates"),
        "auto_reload": False,
        "extensions": ["jinja2.ext.i18n", OneLine],
        "trim_blocks": True,
        "lstrip_blocks": True,
    }
    environment = (
        LanguageEnvironment(code, autoescape=True, **options)
        if in_place
        else Environment(autoescape=True, **options)
    )
    if plain_output:
        environment.template_class = PlainOutputTemplate
    environment.install_gettext_callables(  # type: ignore[attr-defined]
        i18n.gettext, i18n.ngettext, newstyle=True
    )
    # {% trans %} blocks are looked up with their whitespace collapsed, as babel.cfg extracts them.
    environment.policies["ext.i18n.trimmed"] = True
    environment.globals.update(_globals())
    environment.filters.update({MESSAGE_TEXT: escape_output, MESSAGE_NUMBER: int})
    # The faces' names, which the dice's labels say: in place, each translated once, as
    # ``_(name)`` gives it; else looked up as they are read. (``_()`` of a variable, in the
    # tray's loop, was a context call and a catalog lookup for each die: 30 % of the tray's
    # time.) The boxes' names of the live board (the sheet, the log, the hints), likewise;
    # ``box_label(box)`` for the other pages.
    if in_place:
        translate = i18n.translations(code).ugettext
        environment.globals["face_names"] = tuple(_safe(translate(n)) for n in i18n.FACE_NAMES)
        environment.globals["box_labels"] = BoxLabels(
            {box: translate(label) for box, label in i18n.BOX_LABELS.items()}
        )
    else:
        environment.globals["face_names"] = LookedUpFaceNames()
        environment.globals["box_labels"] = LookedUpBoxLabels()
    # Macros made once, last (a template module keeps the globals it was made with): the six
    # faces of a die (and a blank one), drawn once, since the tray shows five every version;
    # the turn's hidden fields, which the tray and the sheet take as a global rather than
    # each importing them (``{% from ... import %}`` made a rendering compare the
    # environment's globals with the macro template's: 9 % of the tray's time, 16 % of the
    # sheet's).
    face = environment.get_template("macros/die.html").module.face  # type: ignore[attr-defined]
    environment.globals["die_faces"] = {value: face(value) for value in (None, 1, 2, 3, 4, 5, 6)}
    environment.globals["turn_fields"] = environment.get_template(  # type: ignore[attr-defined]
        "macros/turn_fields.html"
    ).module.turn_fields
    return environment


def _safe(message: str) -> Markup:
    """A translated message as the newstyle ``_()`` gives it: marked safe, formatted with no
    keywords."""
    return Markup(message) % {}  # noqa: S704 (the catalogs' messages are the templates' text)


class BoxLabels(dict[Box, str]):
    """The boxes' names in one language. What is not a box is an error, as ``box_label``'s
    (Jinja would write a missing key as nothing)."""

    def __missing__(self, key: object) -> str:
        raise ValueError(f"not a box: {key!r}")


class LookedUpFaceNames:
    """The faces' names in the language being served, looked up as each is read."""

    def __getitem__(self, index: int) -> Markup:
        return _safe(i18n.gettext(i18n.FACE_NAMES[index]))


class LookedUpBoxLabels:
    """The boxes' names in the language being served, looked up as each is read."""

    def __getitem__(self, box: Box) -> str:
        return i18n.box_label(box)  # (ValueError for what is not a box)


def _globals() -> dict[str, Any]:
    return {
        "penta_version": __version__,
        "box_label": i18n.box_label,
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
    return templates.get_template(name).render(**context)
