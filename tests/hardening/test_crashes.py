"""Crashes: SIGKILL the server at random moments of scripted games and restart it.

A bot plays whole games through the API while the server is killed ten times, each time at
a random moment (a fixed seed, so a failure replays). After every restart the bot resumes
from what the server says, and in the end every answer the bot was given (its dice, holds,
rolls left and scoresheet) must be a state the game's stored log passes through, in the
order they were given: nothing acknowledged was lost. A game killed in the middle of its
play goes on to its end.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from app.rules import BOXES, Game
from app.store.log import stored_action
from tests.live_server import Server

pytestmark = pytest.mark.slow

KILLS = 10
SEED = 7


class Bot:
    """Plays games one after another through the API, keeping every answer it was given."""

    def __init__(self, server: Server, generator: random.Random) -> None:
        self.server = server
        self.random = generator
        self.answers: dict[str, list[dict[str, Any]]] = {}
        self.tokens: dict[str, str] = {}
        self.stopping = threading.Event()
        self.game_finished = threading.Event()
        self.finished_games = 0
        self.crashes_seen = 0
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            with httpx.Client(base_url=self.server.url, timeout=5) as client:
                while not self.stopping.is_set():
                    self._play_one(client)
        except BaseException as error:  # reported by the test's thread
            self.failure = error
            self.game_finished.set()

    def _play_one(self, client: httpx.Client) -> None:
        created = self._send(client, "POST", "/api/v1/games", json={"name": "Bot"})
        if created is None:  # killed before it was answered: any such game is left alone
            return
        game_id = created["game"]["id"]
        self.tokens[game_id] = created["token"]
        self.answers[game_id] = [created["game"]]
        while True:
            game = self._current(client, game_id)
            if game["status"] == "finished":
                self.finished_games += 1
                self.game_finished.set()
                return
            if game["status"] == "waiting":
                self._action(client, game_id, "start", None)
                continue
            if game["dice"] is None or (game["rolls_left"] and self.random.random() < 0.7):
                held = [i for i in range(5) if game["dice"] and self.random.random() < 0.4]
                self._action(client, game_id, "roll", {"hold": held, "version": game["version"]})
            else:
                box = self.random.choice(sorted(game["options"]))
                self._action(client, game_id, "score", {"box": box, "version": game["version"]})

    def _current(self, client: httpx.Client, game_id: str) -> dict[str, Any]:
        while True:
            game = self._send(client, "GET", f"/api/v1/games/{game_id}")
            if game is not None:
                return game

    def _action(self, client: httpx.Client, game_id: str, action: str, body: Any) -> None:
        auth = {"Authorization": f"Bearer {self.tokens[game_id]}"}
        answer = self._send(
            client, "POST", f"/api/v1/games/{game_id}/{action}", json=body, headers=auth
        )
        if answer is not None:
            self.answers[game_id].append(answer)

    def _send(
        self, client: httpx.Client, method: str, path: str, **request: Any
    ) -> dict[str, Any] | None:
        """The JSON of a 2xx answer; None if the server died first (the bot then waits for
        it to be back) or refused a request sent again after a crash (409)."""
        try:
            response = client.request(method, path, **request)
        except httpx.TransportError:
            self.crashes_seen += 1
            self._wait_for_server(client)
            return None
        if response.status_code == 409:
            return None
        assert response.status_code in (200, 201), response.text
        answer: dict[str, Any] = response.json()
        return answer

    def _wait_for_server(self, client: httpx.Client) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if client.get("/healthz").status_code == 200:
                    return
            except httpx.TransportError:
                self.stopping.wait(0.05)
        raise AssertionError("the server did not come back")


def _stored_states(server: Server, game_id: str, players: int) -> list[Game]:
    """Every state the game passes through in its stored log, from the start."""
    rows = server.query(
        "SELECT kind, payload FROM actions WHERE game_id = :game ORDER BY number", game=game_id
    )
    states = [Game.new(players)]
    for kind, payload in rows:
        # JSON comes back as text from SQLite and as a value from PostgreSQL.
        fields = json.loads(payload) if isinstance(payload, str) else payload
        states.append(states[-1].apply(stored_action(kind, fields)))
    return states


def _shows(answer: dict[str, Any], state: Game) -> bool:
    """Whether an API answer shows ``state``: dice, holds, rolls left and the sheet."""
    sheet = state.sheets[0]
    return (
        answer["dice"] == (list(state.turn.dice) if state.turn.dice else None)
        and answer["held"] == list(state.turn.held)
        and answer["rolls_left"] == state.turn.rolls_left
        and answer["players"][0]["boxes"] == {box.value: sheet[box] for box in BOXES}
    )


def test_acknowledged_actions_survive_sigkill_and_games_go_on(
    start_server: Callable[..., Server],
) -> None:
    server = start_server()
    generator = random.Random(SEED)
    bot = Bot(server, random.Random(SEED + 1))
    player = threading.Thread(target=bot.run, name="bot")
    player.start()
    try:
        for _ in range(KILLS):
            time.sleep(generator.uniform(0.05, 0.6))  # the random moment of the crash
            server.kill()
            server.restart()
        # A game under way when the last crash came goes on to its end.
        bot.game_finished.clear()
        assert bot.game_finished.wait(timeout=120), "no game finished after the crashes"
    finally:
        bot.stopping.set()
        player.join(timeout=60)
    if bot.failure is not None:
        raise bot.failure
    assert bot.crashes_seen >= KILLS // 2

    checked = 0
    for game_id, answers in bot.answers.items():
        states = _stored_states(server, game_id, players=1)
        position = 0
        for answer in answers[1:]:  # after the start, each answer is a state of the log
            while position < len(states) and not _shows(answer, states[position]):
                position += 1
            assert position < len(states), f"{game_id}: an acknowledged state is lost: {answer}"
            checked += 1
    assert checked > 50
