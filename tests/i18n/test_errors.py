"""Error messages of the service and the rules reach the page in the reader's language."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from app import i18n
from app.web.plumbing.middleware import LANGUAGE_COOKIE

APP = Path(__file__).resolve().parents[2] / "app"
TRANSLATED = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT_LANGUAGE]
ERROR_TYPES = {
    "IllegalActionError",
    "ServiceError",
    "ConflictError",
    "ForbiddenError",
    "InvalidError",
    "NotFoundError",
}
# Values for the expressions that messages built with f-strings interpolate.
SAMPLES = {
    "MAX_NAME_LENGTH": "32",
    "MAX_PLAYERS": "6",
    "verb": "join",
    "box.value": "chance",
    "index + 1": "3",
    "allowed": "fours, chance",
    "box!r": "'nope'",
}
DYNAMIC = [
    ("illegal", "the box chance is already used"),
    ("illegal", "the box three_of_a_kind is already used"),
    ("illegal", "the joker forbids chance for this Penta; allowed: fours"),
    ("illegal", "the joker forbids ones for this Penta; allowed: three_of_a_kind, full_house"),
    ("illegal", "die 3 is held and cannot change"),
    ("invalid_box", "there is no box 'nope'"),
    ("invalid_name", "a name has at most 32 characters"),
    ("full", "a game has at most 6 players"),
    ("already_started", "cannot watch a game that has started"),
    ("invalid", "name: Field required"),
]


def _render(message: ast.JoinedStr) -> str:
    parts = []
    for part in message.values:
        if isinstance(part, ast.Constant):
            parts.append(str(part.value))
        else:
            assert isinstance(part, ast.FormattedValue)
            expression = ast.unparse(part.value) + ("!r" if part.conversion == ord("r") else "")
            assert expression in SAMPLES, f"add a sample value for {{{expression}}}"
            parts.append(SAMPLES[expression])
    return "".join(parts)


def raised_messages() -> list[tuple[str, str]]:
    """``(code, message)`` of every error the rules, the service and the web layer raise with
    a message of their own (an f-string message rendered with sample values)."""
    found = []
    for path in sorted(APP.glob("*/*.py")):
        if path.parent.name not in ("rules", "service", "web"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id not in ERROR_TYPES or not node.args:
                continue
            code = node.args[0] if len(node.args) == 2 else ast.Constant("illegal")
            message = node.args[-1]
            if not isinstance(code, ast.Constant):
                continue
            if isinstance(message, ast.Constant) and isinstance(message.value, str):
                found.append((str(code.value), message.value))
            elif isinstance(message, ast.JoinedStr):
                found.append((str(code.value), _render(message)))
    return found


def test_the_sources_raise_the_messages_this_test_knows() -> None:
    messages = raised_messages()
    assert ("illegal", "roll before choosing a box") in messages
    assert ("illegal", "the box chance is already used") in messages
    assert ("not_found", "there is no such game") in messages
    assert len(messages) >= 25


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_raised_message_is_translated(code: str) -> None:
    cases = sorted({*raised_messages(), *DYNAMIC})
    with i18n.language(code):
        untranslated = [
            (error, message)
            for error, message in cases
            if i18n.translate_error(error, message) == message
        ]
    assert untranslated == [], "add them to app/i18n.py ERROR_MESSAGES, then `make extract`"


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_known_message_and_pattern_is_translated(code: str) -> None:
    cases = [("any", message) for message in i18n.ERROR_MESSAGES] + DYNAMIC
    with i18n.language(code):
        for error, message in cases:
            translated = i18n.translate_error(error, message)
            assert translated != message, message
            assert translated.strip()
            assert "%(" not in translated, translated


def test_english_keeps_the_service_messages_with_the_sheets_box_names() -> None:
    with i18n.language("en"):
        for message in i18n.ERROR_MESSAGES:
            assert i18n.translate_error("any", message) == message
        english = {message: i18n.translate_error(error, message) for error, message in DYNAMIC}
    assert english == {
        "the box chance is already used": "the box Chance is already used",
        "the box three_of_a_kind is already used": "the box Three of a kind is already used",
        "the joker forbids chance for this Penta; allowed: fours": (
            "the joker forbids Chance for this Penta; allowed: Fours"
        ),
        "the joker forbids ones for this Penta; allowed: three_of_a_kind, full_house": (
            "the joker forbids Ones for this Penta; allowed: Three of a kind, Full house"
        ),
        "die 3 is held and cannot change": "die 3 is held and cannot change",
        "there is no box 'nope'": "there is no box 'nope'",
        "a name has at most 32 characters": "a name has at most 32 characters",
        "a game has at most 6 players": "a game has at most 6 players",
        "cannot watch a game that has started": "the game has already started",
        "name: Field required": "some of the fields sent are not valid",
    }


@pytest.mark.parametrize("code", list(i18n.LANGUAGES))
def test_unknown_messages_stay_in_english(code: str) -> None:
    with i18n.language(code):
        assert i18n.translate_error("mystery", "something new") == "something new"


@pytest.mark.parametrize(
    ("code", "error", "message", "expected"),
    [
        ("fr", "illegal", "the box chance is already used", "la case Chance est déjà utilisée"),
        (
            "fi",
            "illegal",
            "the box three_of_a_kind is already used",
            "ruutu Kolme samaa on jo käytetty",
        ),
        (
            "fi",
            "illegal",
            "the joker forbids chance for this Penta; allowed: fours",
            "jokeri ei salli tälle Pentalle ruutua Sattuma; sallitut: Neloset",
        ),
        (
            "hu",
            "illegal",
            "the joker forbids ones for this Penta; allowed: three_of_a_kind, full_house",
            "a joker ennél a Pentánál nem engedi ezt a mezőt: Egyesek; választható: Drill, Full",
        ),
        ("he", "illegal", "die 3 is held and cannot change", "קובייה 3 שמורה ואינה יכולה להשתנות"),
        ("th", "invalid_name", "a name has at most 32 characters", "ชื่อยาวได้ไม่เกิน 32 ตัวอักษร"),
        ("he", "full", "a game has at most 2 players", "במשחק יכולים להשתתף לכל היותר 2 שחקנים"),
        ("fr", "full", "a game has at most 1 player", "une partie a au plus 1 joueur"),
        ("th", "invalid_box", "there is no box 'nope'", "ไม่มีช่อง 'nope'"),
        ("fi", "already_started", "cannot watch a game that has started", "peli on jo alkanut"),
    ],
)
def test_messages_with_values_are_rebuilt_around_them(
    code: str, error: str, message: str, expected: str
) -> None:
    with i18n.language(code):
        assert i18n.translate_error(error, message) == expected


@pytest.mark.parametrize("code", list(i18n.LANGUAGES))
def test_the_error_page_speaks_the_readers_language(client: TestClient, code: str) -> None:
    client.cookies.set(LANGUAGE_COOKIE, code)
    response = client.get("/games/nope", headers={"Accept": "text/html"})
    assert response.status_code == 404
    with i18n.language(code):
        message = i18n.translate_error("not_found", "there is no such game")
        title = i18n.gettext("Not found")
    shown = escape(message)
    assert f'<p class="error" role="alert" data-status="404">{shown}</p>' in response.text
    assert f"<h1>{title}</h1>" in response.text
    api = client.get("/api/v1/games/nope")
    assert api.json()["error"] == {"code": "not_found", "message": "there is no such game"}
