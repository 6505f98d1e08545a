"""The templates are compiled with each language's messages in place, and write each value
escaped as a plain ``str`` (app/web/templating.py): every page and live fragment reads byte
for byte as Jinja's own templates make it (each message looked up at every rendering, each
value a ``Markup``; the names of the faces and boxes read through the app's lookups, which
tests/web/test_template_output.py compares with Jinja's ``_()``), in all six languages."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app import i18n
from app.analysis.advice import advise
from app.web.board_parts import BOARD, SHARED_BOARD, board_context
from app.web.templating import Templates, create_templates, render
from tests.scenarios import play_a_game
from tests.web.helpers import auth


def pages(client: TestClient) -> list[str]:
    """Paths of pages of every kind: home, rules, a lobby, a game being played and over."""
    waiting = client.post("/api/v1/games", json={"name": "Zoë <i>"}).json()["game"]["id"]
    views = play_a_game(client, seed=3, turn_seconds=None)
    finished = views[-1].id
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    playing, token = created["game"]["id"], created["token"]
    client.post(f"/api/v1/games/{playing}/start", headers=auth(token))
    client.post(f"/api/v1/games/{playing}/roll", json={"hold": []}, headers=auth(token))
    return [
        "/",
        "/rules",
        "/stats",
        "/leaderboard",
        "/me",
        f"/games/{waiting}",
        f"/games/{playing}",
        f"/games/{playing}/board",
        f"/games/{finished}",
        f"/games/{finished}/review",
    ]


@pytest.mark.single_kind
def test_every_page_reads_as_when_each_message_was_looked_up(client: TestClient) -> None:
    app: Any = client.app
    in_place: Templates = app.state.templates
    looked_up = create_templates(in_place=False, plain_output=False)
    paths = pages(client)
    for language in i18n.LANGUAGES:
        client.cookies.set("penta_lang", language)
        for path in paths:
            app.state.templates = looked_up
            expected = client.get(path)
            app.state.templates = in_place
            answer = client.get(path)
            assert answer.status_code == expected.status_code == 200, (path, answer.status_code)
            assert answer.text == expected.text, f"{path} in {language}"
    app.state.templates = in_place


@pytest.mark.single_kind
def test_every_live_fragment_reads_as_when_each_message_was_looked_up(
    client: TestClient,
) -> None:
    in_place: Templates = client.app.state.templates  # type: ignore[attr-defined]
    looked_up = create_templates(in_place=False, plain_output=False)
    views = play_a_game(client, seed=4, turn_seconds=None)
    service = client.app.state.service  # type: ignore[attr-defined]
    for language in i18n.LANGUAGES:
        for view in views[:: max(len(views) // 12, 1)]:
            shared = view.is_playing
            with i18n.language(language) as current:
                context = board_context(
                    view,
                    lang=current,
                    shared=shared,
                    holder=None if shared else 0,
                    moved=False,
                    site="http://testserver",
                    auto_seconds=3.0,
                    hints=None,
                )
                for part in SHARED_BOARD if shared else BOARD:
                    assert render(in_place, part.template, **context) == render(
                        looked_up, part.template, **context
                    ), f"{part.template} at version {view.version} in {language}"
                if view.is_playing and view.dice:
                    # The hints of the player to move, as that seat's own page shows them.
                    advice = advise(service.strategy.current(), view.state)
                    own = {**context, "me": view.turn, "shared": False, "hints": advice}
                    assert render(in_place, "fragments/hints.html", **own) == render(
                        looked_up, "fragments/hints.html", **own
                    ), f"hints at version {view.version} in {language}"
