"""What just happened, in words: lines derived from the action log, bounded, escaped."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from fastapi.testclient import TestClient

from app import i18n
from app.rules import Box, Game, Roll, Score
from app.service.games import GameService
from app.store.cache import Snapshots
from app.store.log import ACTIVITY_SIZE, ScoreEntry, score_entry
from app.store.models import Reason
from app.web.templating import render
from tests.web.helpers import act, started_game


def test_boxes_and_penta_bonuses_are_kept_from_the_log_and_after_a_reload(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(dice_script="6")
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    game_id, token, _ = started_game(client)
    for box in ("penta", "sixes"):
        act(client, game_id, token, "roll", {"hold": []})
        act(client, game_id, token, "score", {"box": box})
    expected = (
        ScoreEntry(number=2, seat=0, box=Box.PENTA, points=50, bonus=0, reason=None),
        ScoreEntry(number=4, seat=0, box=Box.SIXES, points=30, bonus=100, reason=None),
    )
    assert service.get(game_id).activity == expected
    service.changes.store.snapshots = (
        Snapshots()
    )  # as after a restart: replayed from the stored log
    reloaded = service.get(game_id)
    assert reloaded.activity == expected
    assert reloaded.fresh_score is None  # read back, not this version's news
    act(client, game_id, token, "roll", {"hold": []})
    assert service.get(game_id).fresh_score is None  # a roll since: nothing is new
    act(client, game_id, token, "score", {"box": "chance"})
    assert service.get(game_id).fresh_score == ScoreEntry(6, 0, Box.CHANCE, 30, 100, None)
    service.set_hints(game_id, token, True)  # a change that records no box
    assert service.get(game_id).fresh_score is None


def test_the_log_keeps_only_the_newest_lines(make_client: Callable[..., TestClient]) -> None:
    client = make_client()
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    game_id, token, _ = started_game(client)
    for box in list(Box)[: ACTIVITY_SIZE + 2]:
        act(client, game_id, token, "roll", {"hold": []})
        act(client, game_id, token, "score", {"box": box.value})
    kept = service.get(game_id).activity
    assert [entry.box for entry in kept] == list(Box)[2 : ACTIVITY_SIZE + 2]
    html = client.get(f"/games/{game_id}").text
    assert html.split('id="activity"')[1].split("</section>")[0].count("<li") == ACTIVITY_SIZE


def test_each_reason_reads_as_its_own_sentence_in_the_readers_language(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client()
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    created = client.post("/api/v1/games", json={"name": "<b>Ann</b>"}).json()
    game_id = created["game"]["id"]
    act(client, game_id, "", "players", {"name": "Bob"}, status=201)
    act(client, game_id, created["token"], "start")
    entries = (
        ScoreEntry(1, 0, Box.FULL_HOUSE, 25, 0, None),
        ScoreEntry(2, 1, Box.THREES, 6, 0, Reason.DEADLINE),
        ScoreEntry(3, 0, Box.FOURS, 8, 0, Reason.TURN_TIMER),
        ScoreEntry(4, 1, Box.CHANCE, 0, 0, None),
        ScoreEntry(5, 0, Box.SIXES, 6, 0, Reason.STAND_IN),
        ScoreEntry(6, 1, Box.SIXES, 30, 100, Reason.COMPUTER),
    )
    view = dataclasses.replace(service.get(game_id), activity=entries, scored_now=True)
    templates = client.app.state.templates  # type: ignore[attr-defined]
    html = render(templates, "fragments/activity.html", game=view, oob=False)
    lines = [" ".join(line.split()) for line in html.split("<li")[1:]]
    assert [line.split(">", 1)[1].split("</li>")[0].strip() for line in lines] == [
        '<bdi>Bob</bdi> scored 30 in Sixes <span class="penta-line">Penta! +100</span>',
        "The computer scored 6 in Sixes for <bdi>&lt;b&gt;Ann&lt;/b&gt;</bdi>",
        "<bdi>Bob</bdi> sacrificed Chance",
        "Out of time: the computer scored 8 in Fours for <bdi>&lt;b&gt;Ann&lt;/b&gt;</bdi>",
        "Time's up: the computer scored 6 in Threes for <bdi>Bob</bdi>",
        "<bdi>&lt;b&gt;Ann&lt;/b&gt;</bdi> scored 25 in Full house",
    ]
    latest = html.split('id="activity-latest"')[1]
    assert "<bdi>Bob</bdi> scored 30 in Sixes" in latest  # the newest, for screen readers
    with i18n.language("fr"):
        french = render(templates, "fragments/activity.html", game=view, oob=False)
    assert "ordinateur a marqué 6 en" in french


def test_a_box_the_server_recorded_says_the_dice_and_the_box_it_kept_open() -> None:
    """2-6-6-4-3 into Ones (0) at the deadline: the log keeps the dice, and Chance (21, the most
    those dice could score) as the box kept open; a box that scored the most keeps none."""
    rolled = Game.new(1).apply(Roll((2, 6, 6, 4, 3)))
    entry = score_entry(2, rolled, rolled.apply(Score(Box.ONES)), Box.ONES, Reason.DEADLINE)
    assert (entry.dice, entry.kept_open, entry.points) == ((2, 6, 6, 4, 3), Box.CHANCE, 0)
    best = score_entry(2, rolled, rolled.apply(Score(Box.CHANCE)), Box.CHANCE, Reason.DEADLINE)
    assert (best.dice, best.kept_open) == ((2, 6, 6, 4, 3), None)


def test_the_log_line_of_a_time_out_shows_its_dice_and_why(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client()
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    created = client.post("/api/v1/games", json={"name": "Ann"}).json()
    game_id = created["game"]["id"]
    entries = (
        ScoreEntry(1, 0, Box.ONES, 0, 0, Reason.DEADLINE, (2, 6, 6, 4, 3), Box.CHANCE),
        ScoreEntry(2, 0, Box.CHANCE, 21, 0, None, (2, 6, 6, 4, 3), None),
    )
    view = dataclasses.replace(service.get(game_id), activity=entries, scored_now=True)
    templates = client.app.state.templates  # type: ignore[attr-defined]
    html = render(templates, "fragments/activity.html", game=view, oob=False)
    lines = [" ".join(line.split()) for line in html.split("<li")[1:]]
    assert [line.split(">", 1)[1].split("</li>")[0].strip() for line in lines] == [
        "<bdi>Ann</bdi> scored 21 in Chance",
        "Time's up: the computer scored 0 in Ones for <bdi>Ann</bdi> "
        '<span class="activity-dice">(<span class="dice-digits">2 6 6 4 3</span>: '
        "kept Chance open)</span>",
    ]


def test_the_dice_last_scored_stay_on_the_table_until_the_next_roll(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client()
    game_id, token, _ = started_game(client)
    rolled = act(client, game_id, token, "roll", {"hold": []})
    dice = rolled["dice"]
    act(client, game_id, token, "score", {"box": "chance"})
    tray = client.get(f"/games/{game_id}").text.split('id="dice-tray"')[1].split("</ul>")[0]
    assert 'class="dice last-scored"' in tray
    assert tray.count("<circle ") == sum(dice), "the scored dice, drawn faded"
    assert tray.count('aria-label="die 1: not rolled"') == 1, "for this turn, not rolled yet"
    act(client, game_id, token, "roll", {"hold": []})
    tray = client.get(f"/games/{game_id}").text.split('id="dice-tray"')[1].split("</ul>")[0]
    assert "last-scored" not in tray
