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
from app.web.templating import render
from tests.scenarios import play_a_game


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
