"""SQL statements per move, counted (issue 25): a guard on the hot path's design, not a timing.
A page's roll, hold and score and the API's each read the game once and write once; the
answer is built from the view the move made, with no second read for the seat."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from app.store.driver import DriverStatement
from tests.fairness.play import post
from tests.web.test_pages import HTMX, csrf, new_solo_game

ONE_MOVE = ["SELECT games.version FROM", "UPDATE games SET", "INSERT INTO actions"]
"""A move's statements."""


def _first_words(statement: str) -> str:
    return " ".join(statement.split()[:3])


@contextmanager
def statements(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The SQL statements the app sends meanwhile, each as its first words: those through
    SQLAlchemy (its cursor events) and the hot path's, run on the driver's cursor
    (:class:`app.store.driver.DriverStatement`, counted as they go to the real cursor).
    A transaction's begin is no statement here (SQLite's is run on the driver's connection,
    PostgreSQL's is the driver's own)."""
    engine = client.app.state.service.database.engine  # type: ignore[attr-defined]
    sent: list[str] = []

    def note(_connection: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        sent.append(_first_words(statement))

    with monkeypatch.context() as patch:
        for name in ("fetch_one", "run", "run_many"):
            real = getattr(DriverStatement, name)

            def counted(self: DriverStatement, *args: Any, _real: Any = real) -> Any:
                sent.append(_first_words(self.sql))
                return _real(self, *args)

            patch.setattr(DriverStatement, name, counted)
        event.listen(engine, "before_cursor_execute", note)
        try:
            yield sent
        finally:
            event.remove(engine, "before_cursor_execute", note)


def test_a_page_move_costs_one_read_and_one_write(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_client()
    game_id = new_solo_game(client)
    token = csrf(client)
    headers = {**HTMX, "X-CSRF-Token": token}
    counts = {}
    for move, path, data in (
        ("roll", f"/games/{game_id}/roll", {}),
        ("hold", f"/games/{game_id}/dice/0", {"held": "true"}),
        ("score", f"/games/{game_id}/score", {"box": "chance"}),
    ):
        with statements(client, monkeypatch) as sent:
            answer = client.post(path, data=data, headers=headers)
        assert answer.status_code == 200, answer.text
        counts[move] = sent
    # The version checked, the row updated, the action logged; the board answered from the
    # view the move made (its seat read there: 4 statements a move before, one a read).
    assert counts == dict.fromkeys(("roll", "hold", "score"), ONE_MOVE), counts


def test_an_api_move_costs_one_read_and_one_write(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_client()
    created = post(client, "/api/v1/games", body={"name": "Bot"})
    game_id, token = created["game"]["id"], created["token"]
    post(client, f"/api/v1/games/{game_id}/start", token)
    with statements(client, monkeypatch) as sent:
        post(client, f"/api/v1/games/{game_id}/roll", token, {"hold": []})
    assert sent == ONE_MOVE
