"""A live board keeps a fragment from the version before where what it shows is the same
(app/web/board_parts.py): whole games, played with every kind of move, check that each
fragment kept is the one a fresh rendering of the new version gives, in two languages."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from itertools import pairwise

import pytest
from fastapi.templating import Jinja2Templates
from fastapi.testclient import TestClient

from app import i18n
from app.service.views import GameView
from app.web.board_parts import SHARED_BOARD, BoardPart, board_context
from app.web.plumbing.templating import render
from tests.web.helpers import auth

NAMES = ("Ann", "<b>Bob</b>", "Cy")


def play_a_game(client: TestClient, seed: int, turn_seconds: int | None) -> list[GameView]:
    """Every version of a three-player game, played at random: holds on their own and with
    rolls, rolls to the third, boxes scored and sacrificed."""
    service = client.app.state.service  # type: ignore[attr-defined]
    body = {"name": NAMES[0], "turn_seconds": turn_seconds}
    created = client.post("/api/v1/games", json=body)
    game_id, tokens = created.json()["game"]["id"], [created.json()["token"]]
    for name in NAMES[1:]:
        joined = client.post(f"/api/v1/games/{game_id}/players", json={"name": name})
        tokens.append(joined.json()["token"])
    started = client.post(f"/api/v1/games/{game_id}/start", headers=auth(tokens[0]))
    assert started.status_code == 200, started.text
    choose = random.Random(seed)
    views = [service.get(game_id)]
    while views[-1].is_playing:
        view = views[-1]
        assert view.turn is not None
        token = tokens[view.turn]
        if view.dice is None:
            views.append(service.roll(game_id, token))
        elif view.rolls_left and view.state.can_hold() and choose.random() < 0.4:
            die = choose.randrange(5)
            views.append(service.set_hold(game_id, token, die, not view.held[die]))
        elif view.rolls_left and choose.random() < 0.6:
            keep = [die for die in range(5) if choose.random() < 0.5]
            views.append(service.roll(game_id, token, hold=keep))
        else:
            box = choose.choice(sorted(view.options, key=lambda box: box.position))
            views.append(service.score(game_id, token, box.value))
    return views


def fragment(templates: Jinja2Templates, part: BoardPart, view: GameView, language: str) -> str:
    """``part`` of ``view``'s shared live board, rendered as the stream renders it."""
    with i18n.language(language) as current:
        context = board_context(
            view,
            lang=current,
            shared=True,
            holder=None,
            moved=False,
            site="http://testserver",
            auto_seconds=3.0,
            hints=None,
        )
        return render(templates, part.template, **context)


@pytest.mark.single_kind
def test_every_fragment_kept_from_the_version_before_is_what_a_fresh_rendering_gives(
    make_client: Callable[..., TestClient],
) -> None:
    # One game on dice dealt from a script (the same every run), one on the server's own
    # dice (verifiable) with a turn timer.
    script = ",".join(str(random.Random(25).randint(1, 6)) for _ in range(997))
    games = ((make_client(dice_script=script), None), (make_client(), 60))
    kept: Counter[str] = Counter()
    made: Counter[str] = Counter()
    for seed, (client, turn_seconds) in enumerate(games):
        templates = client.app.state.templates  # type: ignore[attr-defined]
        views = play_a_game(client, seed, turn_seconds)
        assert views[-1].is_finished
        playing = [view for view in views if view.is_playing]
        for language in ("en", "he"):
            for before, after in pairwise(playing):
                for part in SHARED_BOARD:
                    if part.shows is None:
                        continue
                    if part.shows(before) != part.shows(after):
                        made[part.template] += 1
                        continue
                    kept[part.template] += 1
                    assert fragment(templates, part, after, language) == fragment(
                        templates, part, before, language
                    ), f"{part.template} kept at version {after.version} ({language})"
    # Each keyed fragment is kept (a hold keeps the sheet, a roll the log); those that change
    # in play are made anew too (the dice's seeds change only at the start and the end).
    keyed = {part.template for part in SHARED_BOARD if part.shows is not None}
    assert set(kept) == keyed
    assert set(made) == keyed - {"fragments/fairness.html"}, made
