"""The verifiable dice in the bot API: the game's ``fairness``, client seeds given with the
join and the start (and fixed from then on), games without a seed, the roll log."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from fastapi.testclient import TestClient

from app.fairness import commitment
from app.store.migrate import alembic_config
from tests.web.helpers import act, auth

HEX32 = re.compile(r"^[0-9a-f]{32}$")


def create(client: TestClient) -> tuple[str, str, dict[str, object]]:
    response = client.post("/api/v1/games", json={"name": "Ann"})
    assert response.status_code == 201, response.text
    answer = response.json()
    return answer["game"]["id"], answer["token"], answer["game"]


def server_seed(client: TestClient, game_id: str) -> str | None:
    """The game's server seed as the database holds it."""
    engine = client.app.state.service.database.engine  # type: ignore[attr-defined]
    with engine.connect() as connection:
        seed = connection.execute(
            sa.text("SELECT server_seed FROM games WHERE id = :id"), {"id": game_id}
        ).scalar_one()
    return None if seed is None else str(seed)


def test_a_new_game_publishes_the_commitment_and_keeps_the_seed(client: TestClient) -> None:
    game_id, _token, game = create(client)
    seed = server_seed(client, game_id)
    assert seed is not None
    assert len(bytes.fromhex(seed)) == 32
    assert game["fairness"] == {
        "commitment": commitment(bytes.fromhex(seed)),
        "scheme": 2,
        "client_seeds": [{"seat": 0, "client_seed": None}],
        "server_seed": None,
        "verifiable": True,
    }


def test_join_and_start_take_the_seats_client_seeds(client: TestClient) -> None:
    game_id, ann, _game = create(client)
    bob = act(client, game_id, "", "players", {"name": "Bob", "client_seed": " ~x:y "}, 201)
    cy = act(client, game_id, "", "players", {"name": "Cy"}, 201)
    act(client, game_id, ann, "computers")
    started = act(client, game_id, ann, "start", {"client_seed": "ann's seed"})
    seeds = started["fairness"]["client_seeds"]
    assert [seat["seat"] for seat in seeds] == [0, 1, 2]  # the computer (seat 3) has none
    assert seeds[0]["client_seed"] == "ann's seed"
    assert seeds[1]["client_seed"] == " ~x:y "
    assert HEX32.match(seeds[2]["client_seed"]), "made by the server for Cy, who gave none"
    assert bob["game"]["fairness"]["client_seeds"][1]["client_seed"] == " ~x:y "
    assert cy["game"]["fairness"]["client_seeds"][2] == seeds[2]


def test_the_host_who_gives_no_seed_gets_one_from_the_server(client: TestClient) -> None:
    game_id, ann, _game = create(client)
    started = act(client, game_id, ann, "start")
    assert HEX32.match(started["fairness"]["client_seeds"][0]["client_seed"])


@pytest.mark.parametrize("seed", ["", "x" * 65, "é", "tab\there", "new\nline", "\x7f", 42])
def test_a_client_seed_is_1_to_64_printable_ascii_characters(
    client: TestClient, seed: object
) -> None:
    game_id, ann, _game = create(client)
    joined = act(client, game_id, "", "players", {"name": "Bob", "client_seed": seed}, 422)
    assert joined["error"]["code"] == "invalid"
    act(client, game_id, ann, "start", {"client_seed": seed}, 422)
    game = client.get(f"/api/v1/games/{game_id}").json()
    assert (game["status"], len(game["players"])) == ("waiting", 1)


def test_a_64_character_seed_is_taken(client: TestClient) -> None:
    game_id, ann, _game = create(client)
    seed = "".join(chr(code) for code in range(0x20, 0x7F))[:64]
    started = act(client, game_id, ann, "start", {"client_seed": seed})
    assert started["fairness"]["client_seeds"][0]["client_seed"] == seed


def test_a_seats_client_seed_cannot_change_after_the_start(client: TestClient) -> None:
    game_id, ann, _game = create(client)
    act(client, game_id, "", "players", {"name": "Bob", "client_seed": "bob"}, 201)
    before = act(client, game_id, ann, "start", {"client_seed": "ann"})["fairness"]
    again = act(client, game_id, ann, "start", {"client_seed": "other"}, 409)
    assert again["error"]["code"] == "already_started"
    late = act(client, game_id, "", "players", {"name": "Cy", "client_seed": "cy"}, 409)
    assert late["error"]["code"] == "already_started"
    assert client.get(f"/api/v1/games/{game_id}").json()["fairness"] == before


def test_a_seat_may_change_its_seed_while_the_game_waits_and_not_after(
    client: TestClient,
) -> None:
    game_id, ann, _game = create(client)
    bob = act(client, game_id, "", "players", {"name": "Bob", "client_seed": "first"}, 201)
    path = f"/api/v1/games/{game_id}/client_seed"

    def put(token: str, body: object) -> tuple[int, dict[str, Any]]:
        response = client.put(path, json=body, headers=auth(token) if token else {})
        return response.status_code, response.json()

    status, game = put(bob["token"], {"client_seed": "second"})
    assert status == 200
    assert game["fairness"]["client_seeds"][1] == {"seat": 1, "client_seed": "second"}
    assert put(ann, {"client_seed": "ann-early"})[0] == 200
    assert put("", {"client_seed": "x"})[1]["error"]["code"] == "not_your_seat"
    assert put(ann, {"client_seed": "x" * 65})[0] == 422
    assert put(ann, {})[0] == 422
    assert (
        client.put("/api/v1/games/nope/client_seed", json={"client_seed": "x"}).status_code == 404
    )

    started = act(client, game_id, ann, "start")  # no seed: the one Ann set stays
    seeds = started["fairness"]["client_seeds"]
    assert [seat["client_seed"] for seat in seeds] == ["ann-early", "second"]
    for token in (ann, bob["token"]):
        status, refused = put(token, {"client_seed": "later"})
        assert (status, refused["error"]) == (
            409,
            {"code": "seeds_fixed", "message": "the seeds are fixed once the game has started"},
        )
    assert client.get(f"/api/v1/games/{game_id}").json()["fairness"]["client_seeds"] == seeds


def test_the_log_lists_each_roll_with_its_holds_while_the_seed_stays_secret(
    client: TestClient,
) -> None:
    game_id, ann, _game = create(client)
    assert client.get(f"/api/v1/games/{game_id}/log").json()["rolls"] == []
    act(client, game_id, ann, "start")
    first = act(client, game_id, ann, "roll", {"hold": []})["dice"]
    second = act(client, game_id, ann, "roll", {"hold": [1, 3]})["dice"]
    act(client, game_id, ann, "score", {"box": "chance"})
    third = act(client, game_id, ann, "roll", {"hold": []})["dice"]
    log = client.get(f"/api/v1/games/{game_id}/log").json()
    assert log["rolls"] == [
        {"n": 0, "turn": 0, "seat": 0, "held": [False] * 5, "dice": first},
        {"n": 1, "turn": 0, "seat": 0, "held": [False, True, False, True, False], "dice": second},
        {"n": 2, "turn": 1, "seat": 0, "held": [False] * 5, "dice": third},
    ]
    assert (log["game_id"], log["status"], log["fairness"]["server_seed"]) == (
        game_id,
        "playing",
        None,
    )
    assert client.get("/api/v1/games/nope/log").status_code == 404


def test_scripted_dice_make_games_that_say_they_are_not_verifiable(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(dice_script="6,6,6,6,6")
    game_id, ann, game = create(client)
    assert game["fairness"] == {
        "commitment": None,
        "scheme": 1,
        "client_seeds": [{"seat": 0, "client_seed": None}],
        "server_seed": None,
        "verifiable": False,
    }
    assert server_seed(client, game_id) is None
    act(client, game_id, ann, "start")
    assert act(client, game_id, ann, "roll", {"hold": []})["dice"] == [6, 6, 6, 6, 6]


@pytest.mark.single_kind  # makes its own SQLite database at revision 0002
def test_a_game_from_before_the_verifiable_dice_keeps_its_dice_and_says_so(
    tmp_path: Path, make_client: Callable[..., TestClient]
) -> None:
    """A database at revision 0002 with a game in play, migrated when the app starts."""
    url = f"sqlite:///{tmp_path / 'data' / 'penta.db'}"
    (tmp_path / "data").mkdir()
    command.upgrade(alembic_config(url), "0002")
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO games (id, status, version, created_at, updated_at) "
                "VALUES ('old', 'playing', 3, '2026-11-30', '2026-11-30')"
            )
        )
        connection.execute(
            sa.text(
                "INSERT INTO players (game_id, seat, name, computer, secret_hash, hints, "
                "used_hints) VALUES ('old', 0, 'Ann', 0, :hash, 0, 0)"
            ),
            {"hash": hashlib.sha256(b"ann-secret").hexdigest()},
        )
        connection.execute(
            sa.text(
                "INSERT INTO actions (game_id, number, seat, kind, payload, by_computer, "
                "created_at) VALUES ('old', 1, 0, 'roll', :dice, 0, '2026-11-30')"
            ),
            {"dice": '{"dice": [1, 2, 3, 4, 5]}'},
        )
    engine.dispose()
    client = make_client(database_url=url)
    game = client.get("/api/v1/games/old").json()
    assert game["dice"] == [1, 2, 3, 4, 5]
    assert game["fairness"] == {
        "commitment": None,
        "scheme": 1,
        "client_seeds": [{"seat": 0, "client_seed": None}],
        "server_seed": None,
        "verifiable": False,
    }
    rolled = client.post("/api/v1/games/old/roll", json={"hold": [0]}, headers=auth("ann-secret"))
    assert rolled.status_code == 200, rolled.text
    assert rolled.json()["dice"][0] == 1
    assert [roll["n"] for roll in client.get("/api/v1/games/old/log").json()["rolls"]] == [0, 1]
