"""The rules page in every language names each box exactly as that language's scoresheet does."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app import i18n
from app.rules import BOXES, LOWER_BOXES
from app.web.plumbing.middleware import LANGUAGE_COOKIE
from tests.i18n.pages import in_language, new_game, text_of

RULES_BOX = re.compile(r'<span class="box-name" data-box="(\w+)">([^<]*)</span>')
SHEET_BOX = re.compile(
    r'<tr id="sheet-\w+" data-live-part data-box="(\w+)">\s*<th scope="row">([^<]*)</th>'
)

# The names of the reference texts, their slips fixed: one name per box, never two boxes alike.
BOX_NAMES = {
    "en": "Ones Twos Threes Fours Fives Sixes|Three of a kind|Four of a kind|Full house|"
    "Small straight|Large straight|Chance|Penta",
    "fr": "As Deux Trois Quatre Cinq Six|Brelan|Carré|Full|Petite suite|Grande suite|Chance|Penta",
    "fi": "Ykköset Kakkoset Kolmoset Neloset Viitoset Kuutoset|Kolme samaa|Neljä samaa|Täyskäsi|"
    "Pieni suora|Iso suora|Sattuma|Penta",
    "hu": "Egyesek Kettesek Hármasok Négyesek Ötösök Hatosok|Drill|Póker|Full|Kis sor|Nagy sor|"
    "Esély|Penta",
    "th": "เอซ สอง สาม สี่ ห้า หก|Brelan|Carré|Full|Petite suite|Grande suite|Chance|Penta",
    "he": "אחדים שניים שלשות ארבעות חמשות שישיות|שלישייה|רביעייה|פול האוס|רצף קטן|רצף גדול|"
    "צ'אנס|פנטה",
}


def names(code: str) -> dict[str, str]:
    upper, *lower = BOX_NAMES[code].split("|")
    return dict(zip([box.value for box in BOXES], upper.split(" ") + lower, strict=True))


def found(pattern: re.Pattern[str], page: str) -> list[tuple[str, str]]:
    return [(key, text_of(name)) for key, name in pattern.findall(page)]


@pytest.mark.parametrize("code", list(i18n.LANGUAGES))
def test_the_rules_page_uses_the_scoresheet_names(client: TestClient, code: str) -> None:
    client.cookies.set(LANGUAGE_COOKIE, code)
    sheet = dict(found(SHEET_BOX, client.get(f"/games/{new_game(client, 'solo')}").text))
    rules = client.get("/rules").text
    mentioned = found(RULES_BOX, rules)
    assert sheet == names(code)
    assert {key for key, _ in mentioned} == set(sheet), "the rules table lists every box"
    assert [(key, name) for key, name in mentioned if sheet[key] != name] == []
    assert len(set(sheet.values())) == 13
    assert len({sheet[box.value] for box in LOWER_BOXES}) == 7


@pytest.mark.parametrize("code", list(i18n.LANGUAGES))
def test_the_rules_page_says_what_the_game_does(client: TestClient, code: str) -> None:
    client.cookies.set(LANGUAGE_COOKIE, code)
    page = client.get("/rules").text
    warning = in_language(code, "No open box scores: one must be sacrificed")
    assert f'<blockquote class="sacrifice-warning"><p>{warning}</p></blockquote>' in page
    rules = text_of(page)
    for message in (
        "No open box scores: one must be sacrificed",
        "Upper bonus",
        "The joker",
        "Confirm turn",
    ):
        assert text_of(in_language(code, message)) in rules, message
    with i18n.language(code):
        assert (
            text_of(
                i18n.ngettext(
                    "After the third roll, if you select nothing within %(num)d second, the app "
                    "records the roll itself, in the box the computer would choose.",
                    "After the third roll, if you select nothing within %(num)d seconds, the app "
                    "records the roll itself, in the box the computer would choose.",
                    3,
                )
                % {"num": 3}
            )
            in rules
        )
    assert "%(" not in rules
