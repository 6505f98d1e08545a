"""The 404 page says what may have happened and where to go, in the reader's language."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app import i18n
from app.web.plumbing.middleware import LANGUAGE_COOKIE
from tests.catalogs import compile_catalogs

FRIENDLY = (
    "The link may be mistyped, or the game may be over and gone. "
    "Every game starts from the home page."
)


@pytest.fixture(scope="module", autouse=True)
def compiled_catalogs() -> None:
    compile_catalogs()


@pytest.mark.parametrize("code", ["en", "fr", "fi", "hu", "th", "he"])
def test_an_unknown_game_gets_a_friendly_page(client: TestClient, code: str) -> None:
    client.cookies.set(LANGUAGE_COOKIE, code)
    response = client.get("/games/no-such-game", headers={"accept": "text/html"})
    assert response.status_code == 404
    with i18n.language(code):
        assert i18n.gettext(FRIENDLY) in response.text
        assert i18n.gettext("Back to the start") in response.text
    if code != "en":
        assert FRIENDLY not in response.text, "translated"
