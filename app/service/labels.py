"""Short column labels for the scoresheet: a few characters that tell every seat apart."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

_WORDS = re.compile("[^\\s\\-\u2010-\u2015_.\u00b7]+")  # words, split at spaces and dashes


def _first_character(word: str) -> str:
    """The word's first character with the marks that combine with it (Thai, Hebrew points)."""
    end = 1
    while end < len(word) and unicodedata.combining(word[end]):
        end += 1
    return word[:end]


def initials(name: str) -> str:
    """The name's initials: the first and the last word's first character, upper case.

    >>> initials("Computer 3"), initials("Annabelle-Marie"), initials("hana")
    ('C3', 'AM', 'H')
    """
    words = _WORDS.findall(name) or [name.strip() or "?"]
    first = _first_character(words[0])
    last = _first_character(words[-1]) if len(words) > 1 else ""
    return (first + last).upper()


def short_labels(names: Sequence[str]) -> tuple[str, ...]:
    """A label per seat, each different: the initials, with the seat's number (from 1) added
    to every label that two seats would share; should that still leave two alike (a name whose
    initials end in a digit), every label gets its seat's number.

    >>> short_labels(["Ann", "Computer 1", "Computer 2", "Anna"])
    ('A1', 'C1', 'C2', 'A4')
    """
    plain = [initials(name) for name in names]
    shared = Counter(label.casefold() for label in plain)
    labels = tuple(
        f"{label}{seat + 1}" if shared[label.casefold()] > 1 else label
        for seat, label in enumerate(plain)
    )
    if len({label.casefold() for label in labels}) < len(labels):
        labels = tuple(f"{label}{seat + 1}" for seat, label in enumerate(plain))
    return labels
