"""What a game's view tells beyond its state, against what the rules say of that state."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from tests.scenarios import SACRIFICE_DICE, play_a_game


@pytest.mark.single_kind
def test_must_sacrifice_read_off_the_boxes_offered_is_what_the_rules_say(
    make_client: Callable[..., TestClient],
) -> None:
    """``GameView.must_sacrifice`` reads the boxes offered (computed once for the view), not
    the rules' own, which scores the dice again: every version of whole games, on dice dealt
    from the script 1, 1, 3, 4, 6 (over and over, a die at a time: late in a game no box left
    scores) and on the server's own. Both answers are seen in the scripted game."""
    for seed, client in ((1, make_client(dice_script=SACRIFICE_DICE)), (2, make_client())):
        seen: Counter[bool] = Counter()
        for view in play_a_game(client, seed, None):
            rules = view.is_playing and view.state.must_sacrifice()
            assert view.must_sacrifice == rules, view.version
            seen[rules] += 1
        assert seen[False] > 0
        if seed == 1:
            assert seen[True] > 0
