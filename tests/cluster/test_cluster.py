"""Three workers on one PostgreSQL and one Redis, as `compose.cluster.yaml` runs them: a game
played across them behaves as on one server. Timings are printed, never asserted."""

from __future__ import annotations

import json
import queue
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.cluster.conftest import METRICS_TOKEN, Cluster
from tests.live.test_live_updates import events
from tests.live_server import Server
from tests.operator.test_metrics import scrape, value

WAIT = 15.0


def answer(worker: Server, path: str, token: str | None = None, body: Any = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.post(f"{worker.url}{path}", json=body, headers=headers, timeout=WAIT)


def act(worker: Server, path: str, token: str | None = None, body: Any = None) -> dict[str, Any]:
    response = answer(worker, path, token, body)
    assert response.status_code in (200, 201), response.text
    result: dict[str, Any] = response.json()
    return result


def new_game(worker: Server, *, computers: int = 0) -> tuple[str, str, dict[str, Any]]:
    """A started game with its host's token, and the game as started."""
    seat = act(worker, "/api/v1/games", body={"name": "Ann"})
    game_id, token = seat["game"]["id"], seat["token"]
    for _ in range(computers):
        act(worker, f"/api/v1/games/{game_id}/computers", token)
    return game_id, token, act(worker, f"/api/v1/games/{game_id}/start", token)


class Reader:
    """A live stream of the API on one worker, read in a thread: each game event with the
    moment it arrived."""

    def __init__(self, worker: Server, game_id: str) -> None:
        self.events: queue.Queue[tuple[dict[str, Any], float]] = queue.Queue()
        self._client = httpx.Client(base_url=worker.url, timeout=httpx.Timeout(WAIT, read=60))
        self._path = f"/api/v1/games/{game_id}/events"
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            with self._client.stream("GET", self._path) as stream:
                for event in events(stream.iter_lines()):
                    if event.get("event") == "game":
                        self.events.put((json.loads(event["data"]), time.perf_counter()))
        except httpx.HTTPError:
            return  # closed by the test, or its worker killed

    def until(
        self, done: Callable[[dict[str, Any]], bool]
    ) -> tuple[list[int], dict[str, Any], float]:
        """The versions received until one satisfies ``done``, that game and when it came."""
        versions: list[int] = []
        deadline = time.monotonic() + WAIT
        while True:
            game, arrived = self.events.get(timeout=max(deadline - time.monotonic(), 0.01))
            versions.append(game["version"])
            if done(game):
                return versions, game, arrived

    def close(self) -> None:
        self._client.close()


@pytest.fixture
def reader() -> Iterator[Callable[[Server, str], Reader]]:
    readers: list[Reader] = []

    def open_reader(worker: Server, game_id: str) -> Reader:
        readers.append(Reader(worker, game_id))
        return readers[-1]

    yield open_reader
    for each in readers:
        each.close()


def test_a_stream_on_one_worker_sees_every_move_made_on_another(
    cluster: Cluster, reader: Callable[[Server, str], Reader], capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = cluster.workers[0], cluster.workers[1]
    game_id, token, game = new_game(b)
    stream = reader(a, game_id)
    seen, _, _ = stream.until(lambda event: event["version"] == game["version"])
    delays: list[float] = []
    for _turn in range(6):
        for _roll in range(3):
            game = act(
                b, f"/api/v1/games/{game_id}/roll", token, {"hold": [], "version": game["version"]}
            )
            answered = time.perf_counter()
            versions, event, arrived = stream.until(lambda e, v=game["version"]: e["version"] >= v)
            assert versions == [game["version"]], "a version was skipped or came twice"
            assert event["dice"] == game["dice"]
            seen += versions
            delays.append(max(arrived - answered, 0.0))
        game = act(b, f"/api/v1/games/{game_id}/auto", token, {"version": game["version"]})
        answered = time.perf_counter()
        versions, event, arrived = stream.until(lambda e, v=game["version"]: e["version"] >= v)
        assert versions == [game["version"]]
        seen += versions
        delays.append(max(arrived - answered, 0.0))
    assert seen == sorted(set(seen))
    assert len(seen) == 1 + 6 * 4
    p95 = statistics.quantiles(delays, n=20)[-1] * 1000
    with capsys.disabled():
        print(
            f"\ncluster: answer on B → event on A, {len(delays)} moves: "
            f"p50 {statistics.median(delays) * 1000:.1f} ms, p95 {p95:.1f} ms"
        )


def test_eight_joins_at_once_on_two_workers_take_exactly_the_free_seats(cluster: Cluster) -> None:
    a, b = cluster.workers[0], cluster.workers[1]
    seat = act(a, "/api/v1/games", body={"name": "Ann"})
    game_id, created = seat["game"]["id"], seat["game"]["version"]
    start = threading.Barrier(8)

    def join(number: int) -> httpx.Response:
        start.wait()
        worker = (a, b)[number % 2]
        return answer(worker, f"/api/v1/games/{game_id}/players", body={"name": f"P{number}"})

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(join, range(8)))
    joined = [response.json() for response in answers if response.status_code == 201]
    refused = [response.json() for response in answers if response.status_code != 201]
    assert len(joined) == 5
    assert [body["error"]["code"] for body in refused] == ["full"] * 3
    versions = sorted(body["game"]["version"] for body in joined)
    assert versions == list(range(created + 1, created + 6)), "one version per commit"
    game = httpx.get(f"{b.url}/api/v1/games/{game_id}", timeout=WAIT).json()
    assert (len(game["players"]), game["version"]) == (6, created + 5)


def test_twenty_identical_actions_over_the_workers_apply_once(cluster: Cluster) -> None:
    workers = _alive(cluster)
    game_id, token, game = new_game(workers[0])
    start = threading.Barrier(20)

    def roll(number: int) -> httpx.Response:
        start.wait()
        worker = workers[number % len(workers)]
        return answer(
            worker, f"/api/v1/games/{game_id}/roll", token, {"hold": [], "version": game["version"]}
        )

    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(roll, range(20)))
    statuses = sorted(response.status_code for response in answers)
    assert statuses == [200] + [409] * 19
    assert {r.json()["error"]["code"] for r in answers if r.status_code == 409} == {"stale"}
    rolls = cluster.rows(
        "SELECT count(*) FROM actions WHERE game_id = %s AND kind = 'roll'", game_id
    )
    assert rolls == [(1,)]


def test_a_deadline_and_a_computer_seat_are_played_once_while_workers_race(
    cluster: Cluster, reader: Callable[[Server, str], Reader]
) -> None:
    a, b, c = cluster.workers
    game_id, token, _ = new_game(a, computers=1)
    stream = reader(c, game_id)
    for _ in range(3):
        act(b, f"/api/v1/games/{game_id}/roll", token, {"hold": []})
    # Ann lets the deadline pass: a worker scores for her, then the computer plays its turn,
    # every worker having been told when each step is due.
    stream.until(lambda event: event["round"] == 2 and event["turn"] == 0)
    rows = cluster.rows(
        "SELECT seat, kind, reason FROM actions"
        " WHERE game_id = %s AND kind <> 'hold' ORDER BY number",
        game_id,
    )
    scores = [(seat, reason) for seat, kind, reason in rows if kind == "score"]
    assert scores == [(0, "deadline"), (1, "computer")]
    computer_rolls = [row for row in rows if row[0] == 1 and row[1] == "roll"]
    assert 1 <= len(computer_rolls) <= 3
    assert all(reason == "computer" for _, _, reason in computer_rolls)


def test_a_killed_worker_leaves_the_next_computer_step_to_another(
    cluster: Cluster, reader: Callable[[Server, str], Reader], capsys: pytest.CaptureFixture[str]
) -> None:
    survivor, victim = cluster.workers[0], cluster.workers[2]
    game_id, token, game = new_game(victim, computers=1)
    stream = reader(survivor, game_id)
    for _ in range(3):
        game = act(victim, f"/api/v1/games/{game_id}/roll", token, {"hold": []})
    game = act(victim, f"/api/v1/games/{game_id}/auto", token, {"version": game["version"]})
    acknowledged = game["version"]
    victim.kill()  # SIGKILL: the computer's first step was due on it in PACE_SECONDS
    killed = time.perf_counter()
    _, back, arrived = stream.until(lambda event: event["turn"] == 0 and event["round"] == 2)
    assert back["version"] > acknowledged
    rows = cluster.rows(
        "SELECT seat, kind FROM actions WHERE game_id = %s AND kind <> 'hold'", game_id
    )
    assert rows.count((0, "roll")) == 3
    assert rows.count((0, "score")) == 1, "an acknowledged move was lost"
    assert rows.count((1, "score")) == 1
    with capsys.disabled():
        print(
            f"\ncluster: worker killed → computer turn played by another: {arrived - killed:.2f} s"
        )


def test_with_redis_stopped_moves_succeed_and_streams_catch_up(
    cluster: Cluster, reader: Callable[[Server, str], Reader], capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = cluster.workers[0], cluster.workers[1]
    game_id, token, game = new_game(b)
    streams = [reader(a, game_id), reader(b, game_id)]
    for stream in streams:
        stream.until(lambda event: event["version"] == game["version"])
    cluster.redis.stop()
    for _ in range(2):
        game = act(b, f"/api/v1/games/{game_id}/roll", token, {"hold": []})
    for worker in (a, b):
        assert httpx.get(f"{worker.url}/healthz", timeout=WAIT).json()["status"] == "ok"
    cluster.redis.start()
    returned = time.perf_counter()
    game = act(b, f"/api/v1/games/{game_id}/score", token, {"box": next(iter(game["options"]))})
    for stream in streams:
        versions, _, arrived = stream.until(lambda event: event["version"] == game["version"])
        assert versions == sorted(set(versions))
        with capsys.disabled():
            print(
                f"\ncluster: Redis back → stream at the newest version: {arrived - returned:.2f} s"
            )


def test_the_workers_metrics_add_up_to_the_actions_made(cluster: Cluster) -> None:
    """Each worker counts its own; Prometheus adds them up. Only the kinds this test makes
    are compared (the module's other games may still have server steps to play)."""
    kinds = ("create", "start", "roll", "score")
    workers = _alive(cluster)

    def bus_up() -> bool:  # Redis may have been stopped and started again just before
        return all(value(scrape(w.url, METRICS_TOKEN)[1], "penta_bus_up") == 1 for w in workers)

    deadline = time.monotonic() + WAIT
    while not bus_up():
        assert time.monotonic() < deadline, "the workers' bus did not come back"
        time.sleep(0.2)

    def totals() -> tuple[dict[tuple[str, str, str], float], list[float]]:
        summed: dict[tuple[str, str, str], float] = {}
        per_worker: list[float] = []
        for worker in workers:
            _families, samples = scrape(worker.url, METRICS_TOKEN)
            mine = 0.0
            for (name, pairs), number in samples.items():
                labels = dict(pairs)
                if name == "penta_actions_total" and labels["kind"] in kinds:
                    key = (labels["kind"], labels["outcome"], labels["code"])
                    summed[key] = summed.get(key, 0.0) + number
                    mine += number
            per_worker.append(mine)
        return summed, per_worker

    before, worker_before = totals()
    game_id, token, game = new_game(workers[0])
    made = {("create", "ok", ""): 1, ("start", "ok", ""): 1}
    for turn in range(6):
        game = act(workers[turn % len(workers)], f"/api/v1/games/{game_id}/roll", token, {})
        box = max(game["options"], key=game["options"].get)
        scorer = workers[(turn + 1) % len(workers)]
        act(scorer, f"/api/v1/games/{game_id}/score", token, {"box": box})
    made["roll", "ok", ""] = made["score", "ok", ""] = 6
    # Two tabs on two workers ask for the same roll: one is made, the other refused stale.
    version = act(workers[0], f"/api/v1/games/{game_id}/roll", token, {"hold": []})["version"]
    stale = {"hold": [], "version": version - 1}
    refused = answer(workers[1], f"/api/v1/games/{game_id}/roll", token, stale)
    assert refused.status_code == 409
    made["roll", "ok", ""] += 1
    made["roll", "refused", refused.json()["error"]["code"]] = 1
    after, worker_after = totals()
    moved = {key: after[key] - before.get(key, 0.0) for key in after}
    assert {key: int(number) for key, number in moved.items() if number} == made
    assert all(later > earlier for earlier, later in zip(worker_before, worker_after, strict=True))


def _alive(cluster: Cluster) -> list[Server]:
    """The workers the module's other tests left running (one may have been killed: the tests
    run in any order)."""
    workers = [worker for worker in cluster.workers if worker.process.poll() is None]
    assert len(workers) >= 2
    return workers


def _browser(worker: Server) -> tuple[httpx.Client, str]:
    """A browser that asks one worker (its own cookies), and its CSRF token."""
    page = httpx.Client(base_url=worker.url, timeout=WAIT)
    token = page.get("/").text.split('data-csrf-token="')[1].split('"')[0]
    return page, token


def test_two_strangers_on_two_workers_meet_at_one_table(cluster: Cluster) -> None:
    """The quick match's queue is the database's: a player waiting on one worker is matched
    with one who came to another (issue 28)."""
    workers = _alive(cluster)
    pages = []
    for worker, name in zip(workers[:2], ("Ann", "Bob"), strict=True):
        page, token = _browser(worker)
        entered = page.post("/match", data={"name": name, "csrf_token": token})
        assert (entered.status_code, entered.headers["location"]) == (303, "/match")
        pages.append(page)
    deadline = time.monotonic() + WAIT
    tables: list[str] = []
    for page in pages:
        while True:  # as the waiting page asks, every second
            answer = page.get("/match", follow_redirects=False)
            if answer.status_code == 303:
                tables.append(answer.headers["location"])
                break
            assert time.monotonic() < deadline, "no table was made"
            time.sleep(0.3)
    assert tables[0] == tables[1]
    assert tables[0].startswith("/games/")
    game_id = tables[0].removeprefix("/games/")
    game = httpx.get(f"{workers[-1].url}/api/v1/games/{game_id}", timeout=WAIT).json()
    assert game["status"] == "playing"
    assert sorted(player["name"] for player in game["players"]) == ["Ann", "Bob"]
    # Each plays their seat on their own worker: the first to come rolls first.
    first = pages[[player["name"] for player in game["players"]].index("Ann")]
    token = first.get(f"/games/{game_id}").text.split('data-csrf-token="')[1].split('"')[0]
    rolled = first.post(
        f"/games/{game_id}/roll",
        data={"csrf_token": token, "turn": 0, "roll": 0},
        headers={"HX-Request": "true"},
    )
    assert rolled.status_code == 200
    # Nobody is left waiting: both entries are matched into the game (kept until forgotten,
    # so that a waiting page's poll on its way still finds the table).
    assert cluster.rows("SELECT game_id FROM match_queue") == [(game_id,), (game_id,)]
    for page in pages:
        page.close()
