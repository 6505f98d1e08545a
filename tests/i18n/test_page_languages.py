"""Each page in each language: the switcher's cookie, then Accept-Language, then English."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from app import i18n
from app.web.plumbing.middleware import LANGUAGE_COOKIE
from tests.i18n.pages import csrf, html_language, in_language, new_game

CODES = list(i18n.LANGUAGES)
DIRECTION = {"en": "ltr", "fr": "ltr", "fi": "ltr", "hu": "ltr", "th": "ltr", "he": "rtl"}


@pytest.fixture
def pages(client: TestClient) -> dict[str, str]:
    """A path for each kind of page; /stats only once the statistics page exists."""
    paths = {
        "home": "/",
        "game": f"/games/{new_game(client, 'solo')}",
        "lobby": f"/games/{new_game(client, 'friends')}",
        "rules": "/rules",
    }
    if client.get("/stats").status_code != 404:
        paths["stats"] = "/stats"
    return paths


def test_every_language_has_its_direction() -> None:
    assert {code: language.direction for code, language in i18n.LANGUAGES.items()} == DIRECTION


@pytest.mark.parametrize("code", CODES)
def test_each_page_renders_in_the_language_of_the_cookie(
    client: TestClient, pages: dict[str, str], code: str
) -> None:
    client.cookies.set(LANGUAGE_COOKIE, code)
    for kind, path in pages.items():
        response = client.get(path)
        assert response.status_code == 200, kind
        assert html_language(response.text) == (code, DIRECTION[code]), kind
        assert f'<a href="/rules">{in_language(code, "Rules")}</a>' in response.text, kind
    titles = {
        "home": "Play",
        "game": "Game",
        "lobby": "Waiting for players",
        "rules": "Rules",
        "stats": "Statistics",
    }
    for kind, path in pages.items():
        assert f"<title>{in_language(code, titles[kind])} · Penta</title>" in client.get(path).text


@pytest.mark.parametrize(
    ("accept_language", "expected"),
    [
        ("fi;q=0.5, he;q=0.9", "he"),
        ("he;q=0.2, fi;q=0.5", "fi"),
        ("de-DE, hu;q=0.7, en;q=0.3", "hu"),
        ("th-TH", "th"),
        ("fr-CA;q=0.8, *;q=0.5", "fr"),
        ("de, es", "en"),
        ("he;q=0", "en"),
        ("", "en"),
    ],
)
def test_accept_language_with_q_values_chooses_without_a_cookie(
    client: TestClient, pages: dict[str, str], accept_language: str, expected: str
) -> None:
    for kind, path in pages.items():
        page = client.get(path, headers={"Accept-Language": accept_language}).text
        assert html_language(page) == (expected, DIRECTION[expected]), kind


@pytest.mark.parametrize("code", CODES)
def test_the_cookie_beats_accept_language(
    client: TestClient, pages: dict[str, str], code: str
) -> None:
    client.cookies.set(LANGUAGE_COOKIE, code)
    for kind, path in pages.items():
        page = client.get(path, headers={"Accept-Language": "fi;q=0.5, he;q=0.9"}).text
        assert html_language(page) == (code, DIRECTION[code]), kind


def test_an_unknown_cookie_falls_back_to_accept_language(client: TestClient) -> None:
    client.cookies.set(LANGUAGE_COOKIE, "xx")
    page = client.get("/", headers={"Accept-Language": "th, en;q=0.5"}).text
    assert html_language(page) == ("th", "ltr")


def test_the_switcher_remembers_the_language_and_goes_back(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client()
    response = client.post(
        "/language",
        data={"language": "he", "next": "/rules", "csrf_token": csrf(client)},
        headers={"Accept-Language": "fi"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/rules"
    assert f"{LANGUAGE_COOKIE}=he" in response.headers["set-cookie"]
    page = client.get("/rules", headers={"Accept-Language": "fi"}).text
    assert html_language(page) == ("he", "rtl")
    assert '<option value="he" lang="he" selected>עברית</option>' in page
