"""Every form that acts on a turn carries the CSRF token and the turn and roll it was drawn for
(one macro, ``templates/macros/turn_fields.html``), and the server holds it to them."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from fastapi.testclient import TestClient

HTMX = {"HX-Request": "true"}


class Forms(HTMLParser):
    """The hidden fields of each form of a page, by the form's action."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: dict[str, dict[str, str]] = {}
        self._action: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "form":
            self._action = found.get("action") or ""
            self.forms[self._action] = {}
        elif tag == "input" and self._action is not None and found.get("type") == "hidden":
            self.forms[self._action][found.get("name") or ""] = found.get("value") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._action = None


def forms_of(html: str) -> dict[str, dict[str, str]]:
    parser = Forms()
    parser.feed(html)
    return parser.forms


def token_of(client: TestClient) -> str:
    match = re.search(r'data-csrf-token="([^"]+)"', client.get("/").text)
    assert match
    return match.group(1)


def test_the_turns_forms_carry_the_token_turn_and_roll_the_server_checks(
    client: TestClient,
) -> None:
    token = token_of(client)
    created = client.post("/games", data={"name": "Ann", "csrf_token": token})
    game = created.url.path
    assert re.fullmatch(r"/games/[\w-]+", game), game
    rolled = client.post(f"{game}/roll", data={"csrf_token": token, "turn": 0, "roll": 0})
    assert rolled.status_code == 200

    forms = forms_of(client.get(game).text)
    acting = [f"{game}/dice/{index}" for index in range(5)] + [f"{game}/roll", f"{game}/score"]
    expected = {"csrf_token": token, "turn": "0", "roll": "1"}
    for action in acting:
        fields = forms[action]
        assert {name: fields[name] for name in expected} == expected, action

    # The die's form, as drawn, holds it; sent again after the next roll, it is stale.
    hold = {**forms[f"{game}/dice/0"]}
    assert client.post(f"{game}/dice/0", data=hold, headers=HTMX).status_code == 200
    roll = forms_of(client.get(game).text)[f"{game}/roll"]
    assert roll["roll"] == "1"
    assert client.post(f"{game}/roll", data=roll, headers=HTMX).status_code == 200
    stale = client.post(f"{game}/dice/1", data=hold, headers=HTMX)
    assert stale.status_code == 409
    assert 'data-error-code="stale"' in stale.text
