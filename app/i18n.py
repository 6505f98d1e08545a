"""Languages: gettext catalogs compiled by Babel, chosen per request or per live subscriber."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from babel.support import NullTranslations, Translations

from app.rules import Box

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


# -- errors ------------------------------------------------------------------------------
# The service explains a refusal in English (``ServiceError.message``, also the API's text);
# a page shows it in the reader's language. Fixed messages are msgids as they stand; the
# messages the rules build around a box or a number are matched and rebuilt from a template.

ERROR_MESSAGES: tuple[str, ...] = (
    N_("a name is needed"),
    N_("the turn timer is off, 30, 60 or 120 seconds"),
    N_("the game has already started"),
    N_("cannot join a game that has started"),
    N_("cannot add a player to a game that has started"),
    N_("roll before holding dice"),
    N_("no rolls left: choose a box"),
    N_("dice are numbered 0 to 4"),
    N_("a die is held at most once"),
    N_("the computer chooses only after the third roll"),
    N_("the game has not started yet"),
    N_("the game is over"),
    N_("you do not hold a seat in this game"),
    N_("it is not your turn"),
    N_("there is no such game"),
    N_("only the host can do that"),
    N_("the game has moved on since you saw it: here it is now"),
    N_("a rematch follows a finished game"),
    N_("time ran out: the computer recorded your roll"),
    N_("nobody has offered a rematch"),
    N_("you are in the rematch already"),
    N_("the review comes once the game is over"),
    N_("roll before choosing a box"),
    N_("advice is for the player to move"),
    N_("a client seed is 1 to 64 printable ASCII characters"),
    N_("the seeds are fixed once the game has started"),
    N_("cross-site requests are refused"),
    N_("this form has expired: reload the page and try again"),
    N_("Not Found"),
    N_("Method Not Allowed"),
    N_("the server is busy: try again in a moment"),
    N_("this game was closed after a long pause"),
    N_("the server cannot save changes right now: try again later"),
    N_("too many hold changes this turn: roll or choose a box"),
    N_("too many live updates are open from your address"),
    N_("the server has too many live updates open: try again later"),
    N_("there is no such seat"),
    N_("you cannot hand your own seat to the computer"),
    N_("the computer already plays that seat"),
    N_("only the seat of the player to move can be handed over"),
    N_("that player has the game open"),
    N_("that player has not been away long enough"),
    N_("there is no such reaction"),
    N_("too many reactions: wait a moment"),
)
"""Messages shown as they are, translated by looking them up."""

_Fields = Callable[[re.Match[str]], str]


def _box_name(key: str) -> str:
    try:
        return box_label(key)
    except ValueError:
        return key


def _box_names(keys: str) -> str:
    return ", ".join(_box_name(key.strip()) for key in keys.split(","))


def _joker(match: re.Match[str]) -> str:
    return gettext(N_("the joker forbids %(box)s for this Penta; allowed: %(allowed)s")) % {
        "box": _box_name(match["box"]),
        "allowed": _box_names(match["allowed"]),
    }


def _used(match: re.Match[str]) -> str:
    return gettext(N_("the box %(box)s is already used")) % {"box": _box_name(match["box"])}


def _held(match: re.Match[str]) -> str:
    return gettext(N_("die %(number)d is held and cannot change")) % {"number": int(match[1])}


def _no_box(match: re.Match[str]) -> str:
    return gettext(N_("there is no box %(box)s")) % {"box": match[1]}


def _name_length(match: re.Match[str]) -> str:
    count = int(match[1])
    return ngettext(
        "a name has at most %(num)d character", "a name has at most %(num)d characters", count
    ) % {"num": count}


def _players(match: re.Match[str]) -> str:
    count = int(match[1])
    return ngettext(
        "a game has at most %(num)d player", "a game has at most %(num)d players", count
    ) % {"num": count}


def _rate_limited(match: re.Match[str]) -> str:
    return gettext(N_("too many requests from your address: try again in %(seconds)d s")) % {
        "seconds": int(match[1])
    }


def _seat_limited(match: re.Match[str]) -> str:
    return gettext(N_("too many actions from your seat: try again in %(seconds)d s")) % {
        "seconds": int(match[1])
    }


def _too_large(match: re.Match[str]) -> str:
    return gettext(N_("the request is too large: at most %(bytes)d bytes")) % {
        "bytes": int(match[1])
    }


def _started(_match: re.Match[str]) -> str:
    return gettext("the game has already started")


ERROR_PATTERNS: tuple[tuple[re.Pattern[str], _Fields], ...] = (
    (
        re.compile(r"the joker forbids (?P<box>\w+) for this Penta; allowed: (?P<allowed>.+)"),
        _joker,
    ),
    (re.compile(r"the box (?P<box>\w+) is already used"), _used),
    (re.compile(r"die (\d+) is held and cannot change"), _held),
    (re.compile(r"there is no box (.*)"), _no_box),
    (re.compile(r"a name has at most (\d+) characters?"), _name_length),
    (re.compile(r"a game has at most (\d+) players?"), _players),
    (re.compile(r"cannot .+ a game that has started"), _started),
    (re.compile(r"too many requests from your address: try again in (\d+) s"), _rate_limited),
    (re.compile(r"the request is too large: at most (\d+) bytes"), _too_large),
    (re.compile(r"too many actions from your seat: try again in (\d+) s"), _seat_limited),
)
"""Messages the rules and the service build around a value: a pattern and its rebuilding."""

ERROR_CODES: dict[str, str] = {
    "invalid": N_("some of the fields sent are not valid"),
    "malformed": N_("the request could not be read"),
}
"""Codes whose messages come from the framework (form validation): one message per code."""


def translate_error(code: str, message: str) -> str:
    """The error ``message`` of the service (``code`` being its stable code) in the current
    language: in French, "the box chance is already used" reads "la case Chance est déjà
    utilisée". A message it does not know stays in English.
    """
    if message in ERROR_MESSAGES:
        return gettext(message)
    for pattern, rebuild in ERROR_PATTERNS:
        match = pattern.fullmatch(message)
        if match:
            return rebuild(match)
    if code in ERROR_CODES:
        return gettext(ERROR_CODES[code])
    return message
