"""Languages: gettext catalogs compiled by Babel, chosen per request or per live subscriber."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from babel.support import NullTranslations, Translations

from app.rules import Box, refusals

LOCALES_DIR = Path(__file__).resolve().parent / "locales"
DOMAIN = "messages"


@dataclass(frozen=True)
class Language:
    """A language the game speaks."""

    code: str
    name: str
    rtl: bool = False

    @property
    def direction(self) -> str:
        return "rtl" if self.rtl else "ltr"


LANGUAGES: dict[str, Language] = {
    language.code: language
    for language in (
        Language("en", "English"),
        Language("fr", "Français"),
        Language("fi", "Suomi"),
        Language("hu", "Magyar"),
        Language("th", "ไทย"),
        Language("he", "עברית", rtl=True),
    )
}
DEFAULT_LANGUAGE = "en"

_current: ContextVar[str] = ContextVar("penta_language", default=DEFAULT_LANGUAGE)


def N_(message: str) -> str:
    """Mark ``message`` for extraction; it is translated where it is shown."""
    return message


BOX_LABELS: dict[Box, str] = {
    Box.ONES: N_("Ones"),
    Box.TWOS: N_("Twos"),
    Box.THREES: N_("Threes"),
    Box.FOURS: N_("Fours"),
    Box.FIVES: N_("Fives"),
    Box.SIXES: N_("Sixes"),
    Box.THREE_OF_A_KIND: N_("Three of a kind"),
    Box.FOUR_OF_A_KIND: N_("Four of a kind"),
    Box.FULL_HOUSE: N_("Full house"),
    Box.SMALL_STRAIGHT: N_("Small straight"),
    Box.LARGE_STRAIGHT: N_("Large straight"),
    Box.CHANCE: N_("Chance"),
    Box.PENTA: N_("Penta"),
}

FACE_NAMES = (N_("one"), N_("two"), N_("three"), N_("four"), N_("five"), N_("six"))


@cache
def translations(code: str) -> NullTranslations:
    """The compiled catalog of ``code`` (English needs none: the messages are English)."""
    if code == DEFAULT_LANGUAGE:
        return NullTranslations()
    loaded = Translations.load(str(LOCALES_DIR), [code], DOMAIN)
    return loaded


def current_language() -> Language:
    """The language of the request or subscriber being served."""
    return LANGUAGES[_current.get()]


@contextmanager
def language(code: str) -> Iterator[Language]:
    """Serve everything inside the block in ``code``."""
    token = _current.set(code if code in LANGUAGES else DEFAULT_LANGUAGE)
    try:
        yield current_language()
    finally:
        _current.reset(token)


def gettext(message: str) -> str:
    """``message`` in the current language."""
    return translations(_current.get()).ugettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The singular or plural form for ``count`` in the current language."""
    return translations(_current.get()).ungettext(singular, plural, count)


def box_label(box: Box | str) -> str:
    """The name of a box in the current language."""
    return gettext(BOX_LABELS[Box(box)])


def negotiate(accept_language: str | None) -> str | None:
    """The best supported language of an ``Accept-Language`` header (q-values honoured)."""
    if not accept_language:
        return None
    choices: list[tuple[float, int, str]] = []
    for position, part in enumerate(accept_language.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        code = tag.strip().lower().split("-")[0]
        if code in LANGUAGES and quality > 0:
            choices.append((-quality, position, code))
    return min(choices)[2] if choices else None


# -- refusals ----------------------------------------------------------------------------
# A refusal is a code plus parameters; its English template is a msgid of the one table,
# app.rules.refusals.MESSAGES, so a language renders it from its catalog, never from English.


def explain(code: str, params: Mapping[str, object] | None = None) -> str:
    """The refusal ``code`` with ``params`` in the current language, box names included: in
    French, ``explain("box_used", {"box": Box.CHANCE})`` reads "la case Chance est déjà
    utilisée".
    """
    params = params or {}
    message = refusals.MESSAGES[code]
    if isinstance(message, refusals.Plural):
        count = params[refusals.COUNT]
        assert isinstance(count, int)
        template = ngettext(message.singular, message.plural, count)
    else:
        template = gettext(message)
    return template % {name: _shown(value) for name, value in params.items()}


def _shown(value: object) -> object:
    """A parameter as the reader sees it: a box (or several) by its name in their language."""
    if isinstance(value, Box):
        return box_label(value)
    if refusals.is_boxes(value):
        return ", ".join(box_label(box) for box in value)
    return value
