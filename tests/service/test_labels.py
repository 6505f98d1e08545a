"""The scoresheet's short column labels: initials, told apart by the seat's number."""

from __future__ import annotations

import doctest

from hypothesis import given
from hypothesis import strategies as st

from app.service import labels
from app.service.labels import initials, short_labels


def test_doctests() -> None:
    failures, attempted = doctest.testmod(labels)
    assert (failures, attempted) == (0, 2)


def test_six_seats_of_a_phone_game() -> None:
    names = ["Annabelle-Marie", *(f"Computer {number}" for number in range(1, 6))]
    assert short_labels(names) == ("AM", "C1", "C2", "C3", "C4", "C5")


def test_names_that_share_initials_get_their_seat_number() -> None:
    assert short_labels(["Hana", "hannu", "Bob"]) == ("H1", "H2", "B")


def test_a_name_whose_initials_end_in_a_digit_cannot_take_another_seats_label() -> None:
    assert short_labels(["Al", "Al", "A 1"]) == ("A1", "A2", "A13")


def test_scripts_without_case_and_combining_marks() -> None:
    assert initials("שָׁלוֹם עליכם") == "שָׁע"
    assert initials("สมชาย ใจดี") == "สใ"
    assert initials("   ") == "?"


NAMES = st.text(alphabet="Aa1 -", min_size=1, max_size=4) | st.text(max_size=12)


@given(st.lists(NAMES, min_size=1, max_size=6))
def test_every_seat_gets_a_different_short_label(names: list[str]) -> None:
    result = short_labels(names)
    assert len(result) == len(names)
    assert len({label.casefold() for label in result}) == len(names)
    assert all(0 < len(label) <= 6 for label in result)
