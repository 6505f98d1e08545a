"""Refusals are a code plus parameters, rendered in the reader's language from one table."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from fastapi.testclient import TestClient
from markupsafe import escape

from app import i18n
from app.rules import Box, Game, IllegalActionError, Roll, Score
from app.rules.refusals import MESSAGES, Plural, english
from app.service.errors import ConflictError, InvalidError
from app.web.plumbing.middleware import LANGUAGE_COOKIE

APP = Path(__file__).resolve().parents[2] / "app"
TRANSLATED = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT_LANGUAGE]
PLACEHOLDER = re.compile(r"%\((\w+)\)([a-z])")
RULES_ERRORS = {"RulesError", "IllegalActionError", "MalformedActionError"}
"""Raised as ``Error(code, **params)``."""
SERVICE_ERRORS = {
    "ServiceError",
    "ConflictError",
    "ForbiddenError",
    "InvalidError",
    "NotFoundError",
    "TooManyError",
    "UnavailableError",
    "StreamsFullError",
}
"""Raised as ``Error(code, reason, **params)``, the reason being the code unless given; a
subclass of one of them passes its code to ``super().__init__`` the same way."""
CODE_ARGUMENT = {"HTTPRefusal": 1, "refusal_response": 2}
"""Other calls that take the API's code at this argument, then the refusal's reason if not
the code; with anything but a literal there, they pass on a refusal named elsewhere."""
REASON_ARGUMENT = {"require_waiting": 1, "explain": 0}
"""Calls that take a refusal's reason at this argument (likewise)."""
FORWARDERS = {
    "app/service/errors.py:TooManyError.__init__",
    "app/service/status.py:require_waiting",
}
"""Where an error is raised with a code given by the caller (each call is checked above)."""


class _Refusals(ast.NodeVisitor):
    """The refusal codes a module names where it raises or renders one."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.scope: list[str] = []
        self.refusing_classes: set[str] = set()
        self.found: dict[str, list[str]] = {}

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if any(ast.unparse(base) in SERVICE_ERRORS for base in node.bases):
            self.refusing_classes.add(node.name)
        self._within(node.name, node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._within(node.name, node)

    def _within(self, name: str, node: ast.AST) -> None:
        self.scope.append(name)
        self.generic_visit(node)
        self.scope.pop()

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        function = node.func
        name = function.attr if isinstance(function, ast.Attribute) else ast.unparse(function)
        args = node.args
        if ast.unparse(function) == "super().__init__" and self.scope[0] in self.refusing_classes:
            name = "ServiceError"
        if name in RULES_ERRORS and args:
            self._found(args[0], forwards=False)
        elif name in SERVICE_ERRORS and args:
            self._found(args[1] if len(args) > 1 else args[0], forwards=False)
        elif name in CODE_ARGUMENT and len(args) > CODE_ARGUMENT[name]:
            self._found(args[min(CODE_ARGUMENT[name] + 1, len(args) - 1)], forwards=True)
        elif name in REASON_ARGUMENT and len(args) > REASON_ARGUMENT[name]:
            self._found(args[REASON_ARGUMENT[name]], forwards=True)

    def _found(self, code: ast.expr, *, forwards: bool) -> None:
        if isinstance(code, ast.Constant) and isinstance(code.value, str):
            self.found.setdefault(code.value, []).append(self.module)
        elif not forwards:
            where = f"{self.module}:{'.'.join(self.scope)}"
            self.found.setdefault("<given by the caller>", []).append(where)


def raised_codes() -> dict[str, list[str]]:
    """Every refusal code the app's sources name where they raise or render one, with the
    modules; a raise whose code is not a literal is listed under ``<given by the caller>``."""
    found: dict[str, list[str]] = {}
    for path in sorted(APP.rglob("*.py")):
        refusals = _Refusals(str(path.relative_to(APP.parent)))
        refusals.visit(ast.parse(path.read_text()))
        for code, modules in refusals.found.items():
            found.setdefault(code, []).extend(modules)
    return found


def placeholders(text: str) -> set[tuple[str, str]]:
    return set(PLACEHOLDER.findall(text))


def test_the_sources_raise_the_codes_this_test_knows() -> None:
    codes = raised_codes()
    for code in ("roll_before_score", "box_used", "joker_forbids", "not_found", "stale"):
        assert code in codes
    assert "seat_limited" in codes  # a subclass's super().__init__
    assert "too_large" in codes  # an HTTPRefusal
    assert "join_started" in codes  # named where require_waiting is called
    assert len(codes) >= 50


def test_every_code_raised_anywhere_is_in_the_table() -> None:
    codes = raised_codes()
    assert set(codes.pop("<given by the caller>")) == FORWARDERS
    assert sorted(code for code in codes if code not in MESSAGES) == []


def test_every_code_of_the_table_is_used() -> None:
    sources = [
        ast.parse(path.read_text()) for path in APP.rglob("*.py") if path.name != "refusals.py"
    ]
    literals = {
        node.value
        for tree in sources
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    assert sorted(set(MESSAGES) - literals) == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_code_has_a_message_in_every_language_with_the_same_placeholders(
    language: str,
) -> None:
    path = i18n.LOCALES_DIR / language / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as source:
        catalog = read_po(source, locale=language)
    problems = []
    for code, message in MESSAGES.items():
        msgid = (message.singular, message.plural) if isinstance(message, Plural) else message
        entry = catalog.get(msgid)
        if entry is None or entry.fuzzy:
            problems.append(f"{code}: no translation")
            continue
        expected = placeholders(message.plural if isinstance(message, Plural) else message)
        forms = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        for form in forms:
            if not form.strip() or placeholders(form) != expected:
                problems.append(f"{code}: {form!r} has not {sorted(expected)}")
    assert problems == []


def test_i18n_parses_no_english() -> None:
    tree = ast.parse((APP / "i18n.py").read_text())
    nodes = list(ast.walk(tree))
    imported = {name.name for node in nodes if isinstance(node, ast.Import) for name in node.names}
    imported |= {node.module for node in nodes if isinstance(node, ast.ImportFrom)}
    assert "re" not in imported


def test_the_api_text_is_english_with_boxes_by_their_keys() -> None:
    assert english("box_used", {"box": Box.THREE_OF_A_KIND}) == (
        "the box three_of_a_kind is already used"
    )
    allowed = (Box.THREE_OF_A_KIND, Box.FULL_HOUSE)
    assert english("joker_forbids", {"box": Box.ONES, "allowed": allowed}) == (
        "the joker forbids ones for this Penta; allowed: three_of_a_kind, full_house"
    )
    assert english("name_too_long", {"num": 1}) == "a name has at most 1 character"
    assert english("name_too_long", {"num": 32}) == "a name has at most 32 characters"
    assert english("not_found", {}) == "there is no such game"


def test_a_rules_refusal_keeps_its_code_and_params_through_the_service() -> None:
    game = Game.new(1).apply(Roll((1, 2, 3, 4, 5))).apply(Score(Box.CHANCE))
    with pytest.raises(IllegalActionError) as raised:
        game.apply(Roll((6, 6, 6, 6, 6))).apply(Score(Box.CHANCE))
    refusal = ConflictError.of_rules("illegal", raised.value)
    assert (refusal.code, refusal.reason, refusal.params) == (
        "illegal",
        "box_used",
        {"box": Box.CHANCE},
    )
    assert refusal.message == str(raised.value) == "the box chance is already used"


def test_english_shows_the_sheets_box_names() -> None:
    with i18n.language("en"):
        assert i18n.explain("box_used", {"box": Box.THREE_OF_A_KIND}) == (
            "the box Three of a kind is already used"
        )
        assert i18n.explain(
            "joker_forbids", {"box": Box.ONES, "allowed": (Box.THREE_OF_A_KIND, Box.FULL_HOUSE)}
        ) == ("the joker forbids Ones for this Penta; allowed: Three of a kind, Full house")
        error = InvalidError("invalid_box", "no_such_box", box="nope")
        assert (
            i18n.explain(error.reason, error.params) == error.message == ("there is no box 'nope'")
        )


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_code_renders_in_every_language(language: str) -> None:
    samples: dict[str, object] = {
        "box": Box.CHANCE,
        "allowed": (Box.FOURS, Box.CHANCE),
        "num": 2,
        "count": 4,
        "number": 3,
        "seconds": 7,
        "bytes": 1024,
        "value": 7,
        "values": None,
        "most": 6,
        "players": 0,
        "action": "roll",
    }
    for code in MESSAGES:
        template = MESSAGES[code]
        english_template = template.plural if isinstance(template, Plural) else template
        params = {name: samples[name] for name, _ in placeholders(english_template)}
        with i18n.language(language):
            shown = i18n.explain(code, params)
        assert shown.strip(), code
        assert "%(" not in shown, code
        assert shown != english(code, params), f"{code} is not translated into {language}"


@pytest.mark.parametrize(
    ("language", "code", "params", "expected"),
    [
        ("fr", "box_used", {"box": Box.CHANCE}, "la case Chance est déjà utilisée"),
        ("fi", "box_used", {"box": Box.THREE_OF_A_KIND}, "ruutu Kolme samaa on jo käytetty"),
        (
            "fi",
            "joker_forbids",
            {"box": Box.CHANCE, "allowed": (Box.FOURS,)},
            "jokeri ei salli tälle Pentalle ruutua Sattuma; sallitut: Neloset",
        ),
        (
            "hu",
            "joker_forbids",
            {"box": Box.ONES, "allowed": (Box.THREE_OF_A_KIND, Box.FULL_HOUSE)},
            "a joker ennél a Pentánál nem engedi ezt a mezőt: Egyesek; választható: Drill, Full",
        ),
        ("he", "die_held", {"number": 3}, "קובייה 3 שמורה ואינה יכולה להשתנות"),
        ("th", "name_too_long", {"num": 32}, "ชื่อยาวได้ไม่เกิน 32 ตัวอักษร"),
        ("he", "full", {"num": 2}, "במשחק יכולים להשתתף לכל היותר 2 שחקנים"),
        ("fr", "full", {"num": 1}, "une partie a au plus 1 joueur"),
        ("th", "no_such_box", {"box": "nope"}, "ไม่มีช่อง 'nope'"),
        ("fi", "already_started", {}, "peli on jo alkanut"),
    ],
)
def test_refusals_are_rendered_around_their_params(
    language: str, code: str, params: dict[str, object], expected: str
) -> None:
    with i18n.language(language):
        assert i18n.explain(code, params) == expected


@pytest.mark.parametrize("code", list(i18n.LANGUAGES))
def test_the_error_page_speaks_the_readers_language(client: TestClient, code: str) -> None:
    client.cookies.set(LANGUAGE_COOKIE, code)
    response = client.get("/games/nope", headers={"Accept": "text/html"})
    assert response.status_code == 404
    with i18n.language(code):
        message = i18n.explain("not_found")
        title = i18n.gettext("Not found")
    shown = escape(message)
    assert f'<p class="error" role="alert" data-status="404">{shown}</p>' in response.text
    assert f"<h1>{title}</h1>" in response.text
    api = client.get("/api/v1/games/nope")
    assert api.json()["error"] == {"code": "not_found", "message": "there is no such game"}
