"""What a rendering spends (app/web/templating.py, docs/performance.md): the templates write
each value escaped as a plain ``str`` (``escape_output``), not a ``Markup`` each, which is what
markupsafe's ``escape`` gives for any value; the live board imports no template and looks no
name up as it renders; a template reads the environment's globals themselves.
(tests/i18n/test_translated_in_place.py checks that every page and fragment reads byte for
byte as Jinja's own templates make it.)"""

from __future__ import annotations

import ast
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from jinja2 import Undefined
from markupsafe import Markup, escape

from app import i18n
from app.web.board_parts import SHARED_BOARD
from app.web.templating import _conversions, create_templates, escape_output
from tests.live.test_board_parts import fragment
from tests.scenarios import play_a_game


class Html:
    """An object that says its own HTML (as a macro's output or a ``Markup`` does)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __html__(self) -> str:
        return self.text


class SaysNotText:
    """An object whose ``__html__`` gives something other than text (markupsafe makes it
    text, and asks that for its own ``__html__`` again)."""

    def __init__(self, said: object) -> None:
        self.said = said

    def __html__(self) -> object:
        return self.said


class Named:
    """An object written by its ``str``, which may hold markup to escape."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


VALUES = st.one_of(
    st.text(),
    st.text(alphabet="<>&'\"ab "),
    st.integers(),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True),
    st.text().map(Markup),
    st.text().map(Html),
    st.text(alphabet="<>&'\"ab ").map(Named),
    st.lists(st.text(alphabet="<>&'\"ab "), max_size=3),
    st.just(Undefined()),
    st.one_of(st.integers(), st.none(), st.text().map(Html)).map(SaysNotText),
)


@given(VALUES)
def test_a_value_is_written_as_markupsafe_escapes_it(value: Any) -> None:
    written = escape_output(value)
    assert type(written) in (str, Markup)
    assert written == str(escape(value))


def test_what_a_value_brings_is_escaped_and_markup_is_not() -> None:
    assert escape_output("<b>Zoë & 'Ann'</b>") == "&lt;b&gt;Zoë &amp; &#39;Ann&#39;&lt;/b&gt;"
    assert escape_output(Markup("<b>safe</b>")) == "<b>safe</b>"
    assert escape_output(Named('"x"')) == "&#34;x&#34;"
    assert escape_output(12) == "12"


@pytest.mark.single_kind
def test_every_template_writes_its_values_through_escape_output(client: TestClient) -> None:
    templates = client.app.state.templates  # type: ignore[attr-defined]
    names = templates.env.list_templates(extensions=["html"])
    assert len(names) > 30
    for environment in templates.environments.values():
        for name in names:
            module = environment.get_template(name).root_render_func.__globals__
            assert module["escape"] is escape_output, name
    # With Jinja's own template class (the tests' reference), Jinja's escape.
    reference = create_templates(in_place=False, plain_output=False)
    module = reference.env.get_template(names[0]).root_render_func.__globals__
    assert module["escape"] is escape


@pytest.mark.single_kind
def test_a_board_makes_a_markup_for_its_blocks_not_for_each_value(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shared board of a game being played, the boxes offered: under a third of the
    ``Markup`` objects Jinja's own escape makes (one a value written; the rest are the
    blocks', the macros' and the translated messages', 100 of 455 when written)."""
    views = play_a_game(client, seed=5, turn_seconds=None)
    view = next(view for view in views[len(views) // 2 :] if view.is_playing and view.dice)
    templates = client.app.state.templates  # type: ignore[attr-defined]
    reference = create_templates(in_place=False, plain_output=False)
    made = 0
    make = Markup.__new__

    def counting(cls: type[Markup], *arguments: Any, **options: Any) -> Markup:
        nonlocal made
        made += 1
        return make(cls, *arguments, **options)

    for part in SHARED_BOARD:
        fragment(templates, part, view, "en")  # compiled (and its imports) before counting
        fragment(reference, part, view, "en")
    monkeypatch.setattr(Markup, "__new__", counting)
    counts = {}
    for kind, which in (("plain", templates), ("jinja", reference)):
        made = 0
        for part in SHARED_BOARD:
            fragment(which, part, view, "en")
        counts[kind] = made
    monkeypatch.undo()
    assert counts["jinja"] > 300, counts  # one a value written: the figure this guards
    assert counts["plain"] * 3 < counts["jinja"], counts


@pytest.mark.single_kind
def test_the_live_boards_fragments_import_no_template(client: TestClient) -> None:
    """``{% from ... import %}`` runs at every rendering (it compares the environment's
    globals with the imported template's): the live board's fragments take their macros
    as globals (``die_faces``, ``turn_fields``)."""
    templates = client.app.state.templates  # type: ignore[attr-defined]
    for part in SHARED_BOARD:
        source, _filename, _uptodate = templates.env.loader.get_source(templates.env, part.template)
        assert "{% from " not in source, part.template
        assert "{% import " not in source, part.template


@pytest.mark.single_kind
def test_a_live_board_looks_up_no_name_as_it_renders(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The faces' and the boxes' names are translated once per language (``face_names``,
    ``box_labels``): ``_()`` of a variable looked each die's name up at every rendering
    (with Jinja's context calls around it: 30 % of the tray's time), and the sheet and the
    log each box's name. Every other message of the live board is written in place; only
    plurals (``ngettext``) are looked up."""
    views = play_a_game(client, seed=6, turn_seconds=None)
    view = next(view for view in views[len(views) // 2 :] if view.is_playing and view.dice)
    assert view.activity
    templates = client.app.state.templates  # type: ignore[attr-defined]

    def looked_up(*arguments: Any, **options: Any) -> str:
        raise AssertionError(f"looked up as it renders: {arguments}")

    for environment in templates.environments.values():
        for name in ("_", "gettext", "box_label"):
            monkeypatch.setitem(environment.globals, name, looked_up)
    for language in ("fi", "he"):
        for part in SHARED_BOARD:
            assert fragment(templates, part, view, language)


def test_escape_is_only_what_a_template_writes() -> None:
    """``PlainOutputTemplate`` rebinds the name ``escape`` of each compiled template: safe
    only while Jinja's code calls it for nothing but what it writes (yielded, or added to
    the buffer a block joins; never read as a value). Every call to it in every compiled
    template (the Python Jinja writes, parsed) is one of those."""
    environment = create_templates().environments["fi"]
    assert environment.loader is not None
    calls = 0
    for name in environment.list_templates(extensions=["html"]):
        source = environment.loader.get_source(environment, name)[0]
        tree = ast.parse(environment.compile(source, name, raw=True))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            if not (isinstance(node.func, ast.Name) and node.func.id == "escape"):
                continue
            calls += 1
            parent = parents[node]
            if isinstance(parent, ast.Tuple):  # buffer.extend((..., escape(x), ...))
                parent = parents[parent]
            written = isinstance(parent, ast.Yield) or (
                isinstance(parent, ast.Call)
                and isinstance(parent.func, ast.Attribute)
                and parent.func.attr in ("append", "extend")
            )
            assert written, f"{name}:{node.lineno}: {ast.unparse(parent)[:120]}"
    assert calls > 300


def test_the_names_said_once_per_language_are_what_jinjas_lookup_says() -> None:
    """``face_names`` and ``box_labels``, translated once per language, against Jinja's own
    ``_()`` and ``box_label`` looked up as a template renders, in the six languages."""
    templates = create_templates()
    reference = create_templates(in_place=False, plain_output=False)
    jinja_says = reference.env.from_string("{{ _(name) }}|{{ box_label(box) }}")
    ours = {
        code: environment.from_string("{{ face_names[k] }}|{{ box_labels[box] }}")
        for code, environment in templates.environments.items()
    }
    for code in i18n.LANGUAGES:
        with i18n.language(code):
            for index, name in enumerate(i18n.FACE_NAMES):
                for box in i18n.BOX_LABELS:
                    expected = jinja_says.render(name=name, box=box)
                    assert ours[code].render(k=index, box=box) == expected, (code, name, box)
                    assert ours[code].render(k=index, box=box.value) == expected
            with pytest.raises(ValueError, match="not a box"):
                ours[code].render(k=0, box="yahtzee")


MESSAGE = "%(name)s scored %(points)d in %(box)s"
"""A message of the activity log, with keywords of text, number and markup, in every
catalog."""
OTHER_FORMATS = "%(box)r, %(points)5d, %(name)s and %(name)r"
"""Formats left to ``Markup``'s ``%`` (a message in no catalog)."""
_TEMPLATES = create_templates()
_REFERENCE = create_templates(in_place=False, plain_output=False)
_KEYWORDS = {
    "name": st.one_of(st.text(max_size=12), st.booleans(), st.none(), st.integers()),
    "points": st.one_of(
        st.integers(-5, 400), st.floats(0, 99), st.booleans(), st.integers(0, 99).map(str)
    ),
    "box": st.sampled_from([Markup("<bdi>Chance</bdi>"), Html("<b>x</b>"), "A & 'B'", None]),
}


@given(**_KEYWORDS)
def test_a_messages_keywords_are_formatted_as_jinjas_gettext_formats_them(
    name: object, points: object, box: object
) -> None:
    """A message with keywords, written in place, reads as the newstyle ``_()`` makes it
    (``Markup(message) % keywords``): for ``%s`` text escaped and what says its HTML as it
    says, for ``%d`` the keyword's ``int``; in the six languages, and for the formats left to
    ``Markup`` (``%r``, a width)."""
    for message in (MESSAGE, OTHER_FORMATS):
        source = "{{ _(%r, name=name, points=points, box=box) }}" % message  # noqa: UP031
        jinja_says = _REFERENCE.env.from_string(source)
        for code, environment in _TEMPLATES.environments.items():
            with i18n.language(code):
                expected = jinja_says.render(name=name, points=points, box=box)
                written = environment.from_string(source).render(name=name, points=points, box=box)
                assert written == expected, (code, message)
    with i18n.language("fi"):
        assert i18n.gettext(MESSAGE) != MESSAGE  # a catalog's own text is formatted too


def test_a_messages_conversions_are_read_where_markup_would_take_them_alike() -> None:
    """Only ``%(key)s`` and ``%(key)d`` (``i``) go through the keyword filters; any other
    format leaves the message to ``Markup``'s ``%``."""
    assert _conversions("%(name)s scored %(points)d: 100%%") == {"name": "s", "points": "d"}
    assert _conversions("%(n)i %(n)i") == {"n": "i"}
    assert _conversions("no keyword, 5%%") == {}
    for other in ("%(box)r", "%(n)5d", "%(n)-d", "%(n).2f", "%(n)s %(n)d", "%s and %(n)s"):
        assert _conversions(other) is None, other


def test_a_template_reads_the_environments_globals_themselves() -> None:
    """A template with no globals of its own reads the environment's dictionary (a rendering
    copies it into its context: a ``ChainMap`` over it was copied a key at a time, 13 % of a
    live fragment's time). Jinja writes the globals a later load gives a kept template into
    its globals, which would reach every template: a load with globals is refused, and one
    made from a string with its own keeps them to itself."""
    templates = create_templates()
    status = "fragments/status.html"
    for environment in templates.environments.values():
        assert environment.get_template(status).globals is environment.globals
        with pytest.raises(TypeError, match="no globals of its own"):
            environment.get_template(status, globals={"mine": 1})
        with pytest.raises(TypeError, match="no globals of its own"):
            environment.select_template([status], globals={"mine": 1})
        with pytest.raises(TypeError, match="no globals of its own"):
            environment.get_or_select_template(status, globals={})
        own = environment.from_string("{{ mine }}", globals={"mine": "<i>"})
        assert own.render() == "&lt;i&gt;"
        assert "mine" not in environment.globals
        assert environment.from_string("{{ mine }}").render() == ""
