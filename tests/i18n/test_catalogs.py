"""Every catalog translates every message of the template, and the template is up to date."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

from app import i18n

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = i18n.LOCALES_DIR / "messages.pot"
TRANSLATED = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT_LANGUAGE]
PLACEHOLDER = re.compile(r"%\((\w+)\)([sdr])")


def read(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as source:
        return read_po(source, locale=locale)


def catalog_of(code: str) -> Catalog:
    return read(i18n.LOCALES_DIR / code / "LC_MESSAGES" / "messages.po", locale=code)


def ids(catalog: Catalog) -> set[str | tuple[str, ...]]:
    return {message.id for message in catalog if message.id}


def placeholders(text: str) -> set[tuple[str, str]]:
    return set(PLACEHOLDER.findall(text))


def forms(message: Message) -> tuple[str, ...]:
    return message.string if isinstance(message.string, tuple) else (message.string,)


def test_every_language_but_english_has_a_catalog() -> None:
    catalogs = {path.parents[1].name for path in i18n.LOCALES_DIR.glob("*/LC_MESSAGES/*.po")}
    assert catalogs == set(TRANSLATED)


@pytest.mark.parametrize("code", TRANSLATED)
def test_the_catalog_has_exactly_the_messages_of_the_template(code: str) -> None:
    catalog = catalog_of(code)
    assert ids(catalog) == ids(read(TEMPLATE))
    assert not catalog.obsolete


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_message_is_translated_with_the_same_placeholders(code: str) -> None:
    catalog = catalog_of(code)
    problems = []
    for message in catalog:
        if not message.id:
            continue
        singular = message.id[0] if message.pluralizable else message.id
        expected = placeholders(singular)
        if message.fuzzy:
            problems.append(f"fuzzy: {singular!r}")
        for form in forms(message):
            if not form.strip():
                problems.append(f"empty: {singular!r}")
            elif placeholders(form) != expected:
                problems.append(f"placeholders {placeholders(form)} != {expected}: {form!r}")
    assert problems == []


@pytest.mark.parametrize("code", TRANSLATED)
def test_plural_messages_have_the_plural_forms_of_the_language(code: str) -> None:
    catalog = catalog_of(code)
    expected = get_plural(code)
    assert (catalog.num_plurals, catalog.plural_expr) == (
        expected.num_plurals,
        expected.plural_expr,
    )
    plurals = [message for message in catalog if message.id and message.pluralizable]
    assert plurals, "the game has plural messages (rolls left, seconds)"
    for message in plurals:
        assert len(forms(message)) == expected.num_plurals, message.id
        for form in forms(message):
            assert placeholders(form) == placeholders(message.id[1]), form


def _extract_command(output: Path) -> list[str]:
    """The Makefile's `pybabel extract` command, writing to ``output`` instead."""
    makefile = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    line = next(line for line in makefile.splitlines() if "pybabel extract" in line)
    words = shlex.split(line.split("pybabel", 1)[1])
    words[words.index("-o") + 1] = str(output)
    return [str(Path(sys.executable).parent / "pybabel"), *words]


def test_the_template_holds_every_message_of_the_sources(tmp_path: Path) -> None:
    extracted = tmp_path / "messages.pot"
    subprocess.run(_extract_command(extracted), cwd=ROOT, check=True, capture_output=True)
    assert ids(read(extracted)) == ids(read(TEMPLATE)), "run `make extract` and translate"


def test_the_compiled_catalogs_serve_each_language() -> None:
    for code in TRANSLATED:
        with i18n.language(code):
            assert i18n.gettext("Confirm turn") != "Confirm turn", code
            assert i18n.ngettext("Roll (%(num)d left)", "Roll (%(num)d left)", 2) != (
                "Roll (%(num)d left)"
            )
    with i18n.language("en"):
        assert i18n.gettext("Confirm turn") == "Confirm turn"
