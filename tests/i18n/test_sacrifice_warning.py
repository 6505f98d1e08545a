"""The sacrifice warning, forced by scripted dice, in every language with the reference words."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient

from app import i18n
from app.web.plumbing.middleware import LANGUAGE_COOKIE
from tests.i18n.pages import csrf, html_language, new_game
from tests.scenarios import BOXES_BEFORE_SACRIFICE, SACRIFICE_DICE

# The warning as the rules pages of the product give it (French: the product's own words).
WARNING = {
    "en": "No open box scores: one must be sacrificed",
    "fr": "Aucune case libre ne rapporte de points\u00a0: il faut en sacrifier une",
    "fi": "Mikään avoin ruutu ei tuota pisteitä: yksi on uhrattava",
    "hu": "Egyetlen nyitott mező sem hoz pontot: egyet fel kell áldozni",
    "th": "ไม่มีช่องว่างที่ให้คะแนน ต้องเสียไปหนึ่งช่อง",
    "he": "אין תא פתוח שמקנה נקודות: צריך להקריב אחד",
}
SCORING_BOXES = BOXES_BEFORE_SACRIFICE


def act(client: TestClient, path: str, **fields: object) -> str:
    response = client.post(
        path,
        data={name: str(value) for name, value in fields.items()},
        headers={"HX-Request": "true", "X-CSRF-Token": csrf(client)},
    )
    assert response.status_code == 200, response.text
    return response.text


def test_every_language_has_its_reference_warning() -> None:
    assert set(WARNING) == set(i18n.LANGUAGES)
    for code, warning in WARNING.items():
        with i18n.language(code):
            assert i18n.gettext("No open box scores: one must be sacrificed") == warning


def test_the_warning_appears_in_each_language_when_nothing_scores(
    make_client: Callable[..., TestClient],
) -> None:
    languages = list(WARNING)
    client = make_client(dice_script=SACRIFICE_DICE)
    game_id = new_game(client, "solo")
    for turn, box in enumerate(SCORING_BOXES):
        client.cookies.set(LANGUAGE_COOKIE, languages[turn % len(languages)])
        rolled = act(client, f"/games/{game_id}/roll", turn=turn, roll=0)
        assert not any(warning in rolled for warning in WARNING.values())
        act(client, f"/games/{game_id}/score", box=box, turn=turn, roll=1)
    turn = len(SCORING_BOXES)
    for code in languages:
        client.cookies.set(LANGUAGE_COOKIE, code)
        if code == languages[0]:
            fragments = act(client, f"/games/{game_id}/roll", turn=turn, roll=0)
        else:
            fragments = client.get(f"/games/{game_id}/board").text
        page = client.get(f"/games/{game_id}").text
        assert html_language(page)[0] == code
        for html in (fragments, page):
            assert f'<p role="alert">{WARNING[code]}</p>' in html, code
            others = [WARNING[other] for other in languages if other != code]
            assert not any(other in html for other in others), code
