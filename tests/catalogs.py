"""The gettext catalogs compiled for a test session, as `make translations` compiles them."""

from __future__ import annotations

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from app.i18n import LOCALES_DIR


def compile_catalogs() -> None:
    """Compile each ``.po`` whose ``.mo`` is missing or older, fuzzy entries left out, so that a
    plain `pytest` (without `make`) serves every language. A server reading a catalog meanwhile
    sees the old file or the new one, never half of one."""
    for source in sorted(LOCALES_DIR.glob("*/LC_MESSAGES/messages.po")):
        target = source.with_suffix(".mo")
        if target.exists() and target.stat().st_mtime >= source.stat().st_mtime:
            continue
        with source.open("rb") as po:
            catalog = read_po(po, locale=source.parents[1].name)
        partial = target.with_suffix(".mo.part")
        with partial.open("wb") as mo:
            write_mo(mo, catalog)
        partial.replace(target)
