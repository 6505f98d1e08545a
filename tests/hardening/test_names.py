"""Names a person can see and tell apart (issue 27, item 10): NFKC, trimmed, at least one
visible character; control and invisible format characters refused with a clear message
(422 on the API, the form's own message in the player's language on pages); two seats of
one game may not share a name, whatever its case."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.hardening.conftest import csrf_token

UNSEEN = {
    "three zero-width spaces": ("\u200b\u200b\u200b", "name_control"),
    "a lone zero-width joiner": ("\u200d", "name_invisible"),
    "a byte-order mark": ("\ufeff", "name_control"),
    "the Hangul filler": ("\u3164", "name_invisible"),
    "a blank Braille pattern": ("\u2800\u2800", "name_invisible"),
    "tag characters": ("\U000e0041\U000e0042", "name_control"),
    "a terminal colour": ("\x1b[31mRed", "name_control"),
    "a bell": ("Bob\x07", "name_control"),
    "a right-to-left override": ("\u202eevil", "name_control"),
    "a NUL": ("An\x00n", "name_control"),
}
SEEN = {
    "Zoë": "Zoë",
    "  Ann   Lee ": "Ann Lee",
    "ענבל": "ענבל",
    "สมชาย": "สมชาย",
    "👩\u200d💻 Dev": "👩\u200d💻 Dev",  # a joiner inside an emoji sequence
    "\uff2b\uff41\uff54\uff49": "Kati",  # NFKC: fullwidth letters are letters
    "…": "...",
}


def create(client: TestClient, name: str) -> tuple[int, dict[str, object]]:
    answer = client.post("/api/v1/games", json={"name": name})
    body: dict[str, object] = answer.json()
    return answer.status_code, body


@pytest.mark.parametrize("case", list(UNSEEN))
def test_a_name_nobody_can_see_is_refused(client: TestClient, case: str) -> None:
    name, reason = UNSEEN[case]
    status, body = create(client, name)
    assert status == 422, body
    error = body["error"]
    assert isinstance(error, dict)
    assert error["code"] == "invalid_name"
    expected = {
        "name_control": "a name cannot hold control or invisible characters",
        "name_invisible": "a name needs at least one letter, digit or symbol that can be seen",
    }[reason]
    assert error["message"] == expected


@pytest.mark.parametrize("name", list(SEEN))
def test_names_people_write_are_kept_as_seen(client: TestClient, name: str) -> None:
    status, body = create(client, name)
    assert status == 201, body
    game = body["game"]
    assert isinstance(game, dict)
    assert game["players"][0]["name"] == SEEN[name]


def test_two_seats_of_a_game_may_not_share_a_name(client: TestClient) -> None:
    status, body = create(client, "Ann")
    assert status == 201
    game = body["game"]
    assert isinstance(game, dict)
    players = f"/api/v1/games/{game['id']}/players"
    for same in ("Ann", "ann", " ANN ", "\uff21\uff4e\uff4e"):  # fullwidth too
        answer = client.post(players, json={"name": same})
        assert answer.status_code == 409, same
        assert answer.json()["error"]["message"] == (
            "another player in this game already has that name"
        )
    # A person who took a computer's name does not make the next computer share it.
    assert client.post(players, json={"name": "Computer 1"}).status_code == 201
    token = body["token"]
    added = client.post(
        f"/api/v1/games/{game['id']}/computers", headers={"Authorization": f"Bearer {token}"}
    )
    names = [player["name"] for player in added.json()["players"]]
    assert names == ["Ann", "Computer 1", "Computer 2"]


def test_the_home_page_says_why_in_the_players_language(client: TestClient) -> None:
    client.cookies.set("penta_lang", "fr")
    answer = client.post("/games", data={"name": "\u3164", "csrf_token": csrf_token(client)})
    assert answer.status_code == 422
    assert "un nom doit avoir au moins une lettre, un chiffre ou un symbole visible" in answer.text
    engine = client.app.state.service.database.engine  # type: ignore[attr-defined]
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM games").scalar_one() == 0
