"""The bot API against the ASGI app: every route, every error status, a whole game."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from app.rules import BOXES
from app.web.assets import ASSETS
from app.web.deps import bearer_secret, depends_on
from app.web.schemas import GameOut
from tests.scenarios import play_a_game
from tests.web.helpers import act, auth, started_game

BOX_KEYS = [box.value for box in BOXES]


def test_create_returns_a_waiting_game_with_the_host_in_seat_0(client: TestClient) -> None:
    response = client.post("/api/v1/games", json={"name": "Ann"})
    assert response.status_code == 201
    body = response.json()
    game = body["game"]
    assert len(body["token"]) >= 43
    assert game["status"] == "waiting"
    assert game["url"] == f"http://testserver/games/{game['id']}"
    assert game["turn"] is None
    assert game["dice"] is None
    assert game["held"] == [False] * 5
    assert game["options"] == {}
    assert game["players"] == [
        {
            "seat": 0,
            "name": "Ann",
            "player_id": None,
            "computer": False,
            "stand_in": False,
            "boxes": dict.fromkeys(BOX_KEYS),
            "upper_subtotal": 0,
            "upper_bonus": 0,
            "penta_bonus": 0,
            "total": 0,
        }
    ]


def test_start_is_for_the_host_and_only_once(client: TestClient) -> None:
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id, token = created["game"]["id"], created["token"]
    assert client.post(f"/api/v1/games/{game_id}/start").status_code == 403
    wrong = client.post(f"/api/v1/games/{game_id}/start", headers=auth("not-a-seat"))
    assert wrong.json() == {"error": {"code": "not_host", "message": "only the host can do that"}}
    started = act(client, game_id, token, "start")
    assert (started["status"], started["turn"], started["round"]) == ("playing", 0, 1)
    again = act(client, game_id, token, "start", status=409)
    assert again["error"]["code"] == "already_started"


def test_a_whole_solo_game_through_the_api(client: TestClient) -> None:
    game_id, token, game = started_game(client)
    for round_number in range(1, 14):
        assert game["round"] == round_number
        game = act(client, game_id, token, "roll", {"hold": []})
        assert game["rolls_left"] == 2
        assert len(game["dice"]) == 5
        game = act(client, game_id, token, "roll", {"hold": [0, 1]})
        game = act(client, game_id, token, "roll", {"hold": [2]})
        assert game["rolls_left"] == 0
        box = next(iter(game["options"]))
        game = act(client, game_id, token, "score", {"box": box})
    assert game["status"] == "finished"
    assert game["turn"] is None
    assert game["winners"] == [0]
    player = game["players"][0]
    assert all(points is not None for points in player["boxes"].values())
    assert player["total"] == (
        sum(player["boxes"].values()) + player["upper_bonus"] + player["penta_bonus"]
    )
    refused = act(client, game_id, token, "roll", {"hold": []}, status=409)
    assert refused["error"] == {"code": "finished", "message": "the game is over"}


def test_held_dice_keep_their_values(make_client: Callable[..., TestClient]) -> None:
    client = make_client(dice_script="1,2,3,4,5,6")
    game_id, token, _ = started_game(client)
    first = act(client, game_id, token, "roll", {"hold": []})
    assert first["dice"] == [1, 2, 3, 4, 5]
    second = act(client, game_id, token, "roll", {"hold": [0, 4]})
    assert second["dice"] == [1, 6, 1, 2, 5]
    assert second["held"] == [True, False, False, False, True]


def test_a_fourth_roll_is_refused_and_changes_nothing(client: TestClient) -> None:
    game_id, token, _ = started_game(client)
    for _ in range(3):
        game = act(client, game_id, token, "roll", {"hold": []})
    refused = act(client, game_id, token, "roll", {"hold": []}, status=409)
    assert refused["error"] == {"code": "illegal", "message": "no rolls left: choose a box"}
    assert client.get(f"/api/v1/games/{game_id}").json() == game


def test_a_used_box_is_refused(client: TestClient) -> None:
    game_id, token, _ = started_game(client)
    act(client, game_id, token, "roll", {"hold": []})
    act(client, game_id, token, "score", {"box": "chance"})
    game = act(client, game_id, token, "roll", {"hold": []})
    refused = act(client, game_id, token, "score", {"box": "chance"}, status=409)
    assert refused["error"] == {"code": "illegal", "message": "the box chance is already used"}
    assert client.get(f"/api/v1/games/{game_id}").json() == game


def test_the_joker_forbids_other_boxes(make_client: Callable[..., TestClient]) -> None:
    client = make_client(dice_script="4")
    game_id, token, _ = started_game(client)
    act(client, game_id, token, "roll", {"hold": []})
    act(client, game_id, token, "score", {"box": "penta"})
    game = act(client, game_id, token, "roll", {"hold": []})
    assert game["options"] == {"fours": 20}
    assert game["bonus"] == 100
    refused = act(client, game_id, token, "score", {"box": "chance"}, status=409)
    assert refused["error"]["code"] == "illegal"
    assert "joker" in refused["error"]["message"]
    game = act(client, game_id, token, "score", {"box": "fours"})
    assert game["players"][0]["penta_bonus"] == 100
    assert game["players"][0]["total"] == 50 + 20 + 100


def test_forced_sacrifice_is_reported(make_client: Callable[..., TestClient]) -> None:
    client = make_client(dice_script="1,1,3,4,6")
    game_id, token, _ = started_game(client)
    order = [box for box in BOX_KEYS if box not in ("full_house", "large_straight", "chance")]
    for box in [*order, "chance"]:
        game = act(client, game_id, token, "roll", {"hold": []})
        assert game["must_sacrifice"] is False
        act(client, game_id, token, "score", {"box": box})
    game = act(client, game_id, token, "roll", {"hold": []})
    assert game["dice"] == [1, 1, 3, 4, 6]
    assert game["options"] == {"full_house": 0, "large_straight": 0}
    assert game["must_sacrifice"] is True


@pytest.mark.parametrize(
    ("action", "body", "field"),
    [
        ("roll", {"hold": [5]}, "dice are numbered 0 to 4"),
        ("roll", {"hold": [1, 1]}, "a die is held at most once"),
        ("roll", {"hold": "all"}, "hold"),
        ("roll", {"hold": [0, 1, 2, 3, 4, 0]}, "hold"),
        ("score", {"box": "yahtzee"}, "box"),
        ("score", {}, "box"),
        ("roll", {"hold": [], "cheat": True}, "cheat"),
    ],
)
def test_malformed_input_is_422(client: TestClient, action: str, body: object, field: str) -> None:
    game_id, token, _ = started_game(client)
    act(client, game_id, token, "roll", {"hold": []})
    before = client.get(f"/api/v1/games/{game_id}").json()
    refused = act(client, game_id, token, action, body, status=422)
    assert refused["error"]["code"] in ("invalid", "invalid_hold")
    assert field in refused["error"]["message"]
    assert client.get(f"/api/v1/games/{game_id}").json() == before


def test_malformed_json_and_names_are_422(client: TestClient) -> None:
    broken = client.post(
        "/api/v1/games", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert broken.status_code == 422
    assert broken.json()["error"]["code"] == "invalid"
    assert client.post("/api/v1/games", json={"name": ""}).status_code == 422
    assert client.post("/api/v1/games", json={"name": "x" * 33}).status_code == 422
    assert client.post("/api/v1/games", json={"name": "   "}).status_code == 422


def test_unknown_games_are_404_everywhere(client: TestClient) -> None:
    missing = "no-such-game"
    assert client.get(f"/api/v1/games/{missing}").status_code == 404
    assert client.get(f"/api/v1/games/{missing}/advice").status_code == 404
    for action, body in [
        ("start", None),
        ("roll", {"hold": []}),
        ("score", {"box": "chance"}),
        ("auto", None),
        ("players", {"name": "Bo"}),
        ("computers", None),
    ]:
        response = client.post(f"/api/v1/games/{missing}/{action}", json=body, headers=auth("x"))
        assert response.status_code == 404, action
        assert response.json() == {
            "error": {"code": "not_found", "message": "there is no such game"}
        }


def test_acting_without_a_seat_or_out_of_turn_is_403(client: TestClient) -> None:
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id, ann = created["game"]["id"], created["token"]
    bob = act(client, game_id, "", "players", {"name": "Bob"}, status=201)["token"]
    act(client, game_id, ann, "start")
    out_of_turn = act(client, game_id, bob, "roll", {"hold": []}, status=403)
    assert out_of_turn["error"] == {"code": "not_your_turn", "message": "it is not your turn"}
    nobody = act(client, game_id, "forged", "roll", {"hold": []}, status=403)
    assert nobody["error"]["code"] == "not_your_seat"
    assert client.post(f"/api/v1/games/{game_id}/roll", json={"hold": []}).status_code == 403
    game = client.get(f"/api/v1/games/{game_id}").json()
    assert game["dice"] is None
    assert game["version"] == 3


def test_a_stale_version_is_409_and_the_current_one_works(client: TestClient) -> None:
    game_id, token, game = started_game(client)
    version = game["version"]
    rolled = act(client, game_id, token, "roll", {"hold": [], "version": version})
    assert rolled["version"] == version + 1
    stale = act(client, game_id, token, "roll", {"hold": [], "version": version}, status=409)
    assert stale["error"]["code"] == "stale"
    assert client.get(f"/api/v1/games/{game_id}").json() == rolled


def test_auto_records_the_computers_box_only_after_the_third_roll(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(dice_script="2,2,3,3,3")
    game_id, token, _ = started_game(client)
    act(client, game_id, token, "roll", {"hold": []})
    early = act(client, game_id, token, "auto", status=409)
    assert early["error"]["message"] == "the computer chooses only after the third roll"
    act(client, game_id, token, "roll", {"hold": []})
    act(client, game_id, token, "roll", {"hold": []})
    advice = client.get(f"/api/v1/games/{game_id}/advice", headers=auth(token)).json()
    game = act(client, game_id, token, "auto")
    chosen = advice["best_box"]
    assert chosen in BOX_KEYS
    assert game["players"][0]["boxes"][chosen] is not None
    assert sum(points is not None for points in game["players"][0]["boxes"].values()) == 1


def test_advice_is_for_the_player_to_move(make_client: Callable[..., TestClient]) -> None:
    client = make_client(dice_script="2,2,3,3,3")
    game_id, token, _ = started_game(client)
    before = client.get(f"/api/v1/games/{game_id}/advice", headers=auth(token)).json()
    assert before == {"best_box": None, "best_hold": None, "boxes": {}, "optimal": True}
    act(client, game_id, token, "roll", {"hold": []})
    advice = client.get(f"/api/v1/games/{game_id}/advice", headers=auth(token)).json()
    assert set(advice["boxes"]) == set(BOX_KEYS)
    assert advice["boxes"]["full_house"]["points"] == 25
    best = max(advice["boxes"].values(), key=lambda option: option["expected"])
    assert advice["boxes"][advice["best_box"]]["expected"] == best["expected"]
    assert advice["best_hold"] is not None
    assert all(0 <= index < 5 for index in advice["best_hold"])
    assert client.get(f"/api/v1/games/{game_id}/advice").status_code == 403


def test_join_after_the_start_is_409(client: TestClient) -> None:
    game_id, _token, _ = started_game(client)
    refused = client.post(f"/api/v1/games/{game_id}/players", json={"name": "Late"})
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "already_started"


def test_restarting_the_app_continues_the_game_exactly(
    make_client: Callable[..., TestClient],
) -> None:
    first = make_client()
    game_id, token, _ = started_game(first)
    act(first, game_id, token, "roll", {"hold": []})
    act(first, game_id, token, "score", {"box": "chance"})
    act(first, game_id, token, "roll", {"hold": []})
    before = act(first, game_id, token, "roll", {"hold": [1, 3]})
    first.__exit__(None, None, None)
    second = make_client()
    assert second.get(f"/api/v1/games/{game_id}").json() == before
    after = act(second, game_id, token, "roll", {"hold": [0]})
    assert after["rolls_left"] == 0
    assert after["dice"][0] == before["dice"][0]


def test_openapi_documents_the_api(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    paths = set(schema["paths"])
    assert {
        "/api/v1/games",
        "/api/v1/games/{game_id}",
        "/api/v1/games/{game_id}/start",
        "/api/v1/games/{game_id}/roll",
        "/api/v1/games/{game_id}/score",
        "/api/v1/games/{game_id}/auto",
        "/api/v1/games/{game_id}/advice",
    } <= paths
    docs = client.get("/docs")
    assert docs.status_code == 200
    assert ASSETS.url("vendor/swagger-ui-bundle-5.35.0.js") in docs.text
    assert "<script>" not in docs.text


def api_routes(routes: Iterable[Any]) -> Iterator[APIRoute]:
    """The API routes among ``routes`` and in the routers they include."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        included = getattr(route, "original_router", None)
        if included is not None:
            yield from api_routes(included.routes)


@pytest.mark.single_kind
def test_every_route_that_takes_the_seats_token_documents_its_header(
    client: TestClient,
) -> None:
    """The token is read from the request (no ``Header()`` parameter to validate): the schema
    still names the header on every operation that takes it, and on no other."""
    schema = client.get("/openapi.json").json()
    documented = {
        (method.upper(), path)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if any(
            parameter["name"] == "authorization" and parameter["in"] == "header"
            for parameter in operation.get("parameters", [])
        )
    }
    taking = {
        (method, route.path)
        for route in api_routes(client.app.routes)  # type: ignore[attr-defined]
        if route.include_in_schema and depends_on(route.dependant, bearer_secret)
        for method in route.methods
    }
    assert len(taking) >= 14
    assert documented == taking
    roll = schema["paths"]["/api/v1/games/{game_id}/roll"]["post"]
    assert [parameter["name"] for parameter in roll["parameters"]] == ["game_id", "authorization"]
    # The header is read as it was: any case of "Bearer", and no token without it.
    game_id, token, _game = started_game(client)
    for header in (f"bearer {token}", f"BEARER  {token} "):
        rolled = client.post(
            f"/api/v1/games/{game_id}/roll", json={"hold": []}, headers={"Authorization": header}
        )
        assert rolled.status_code == 200, rolled.text
    refused = client.post(
        f"/api/v1/games/{game_id}/roll", json={"hold": []}, headers={"Authorization": token}
    )
    assert refused.status_code == 403


@pytest.mark.single_kind
def test_the_json_of_every_version_is_a_valid_game_as_it_is(client: TestClient) -> None:
    """``GameOut.of`` skips validation (the server built the view): what it writes for every
    version of a whole game validates as a ``Game`` and says the same once validated."""
    views = play_a_game(client, seed=29, turn_seconds=60)
    assert views[-1].is_finished
    assert views[-1].fairness.server_seed
    for view in views:
        written = GameOut.of(view, "http://testserver").model_dump_json()
        assert GameOut.model_validate_json(written).model_dump_json() == written
