"""Helpers of the language tests: pages read in a language, games created through the forms."""

from __future__ import annotations

import html
import re

from fastapi.testclient import TestClient

from app import i18n

HTML_TAG = re.compile(r'<html lang="(?P<lang>[\w-]+)" dir="(?P<dir>rtl|ltr)">')


def in_language(code: str, message: str) -> str:
    """``message`` as the catalogs translate it into ``code``."""
    with i18n.language(code):
        return i18n.gettext(message)


def html_language(page: str) -> tuple[str, str]:
    """The ``lang`` and ``dir`` of a page's ``<html>`` element."""
    match = HTML_TAG.search(page)
    assert match, "the page opens with <html lang dir>"
    return match["lang"], match["dir"]


def csrf(client: TestClient) -> str:
    match = re.search(r'name="csrf_token" value="([0-9a-f]{64})"', client.get("/").text)
    assert match
    return match.group(1)


def new_game(client: TestClient, mode: str, name: str = "Ann") -> str:
    """A solo game (started) or a friends game (waiting): its id."""
    response = client.post(
        "/games",
        data={"name": name, "mode": mode, "csrf_token": csrf(client)},
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    return str(response.headers["location"]).removeprefix("/games/")


def text_of(fragment: str) -> str:
    """The text of an HTML fragment: tags dropped, entities decoded, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())
