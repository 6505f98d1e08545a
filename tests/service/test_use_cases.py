"""The service's use cases called directly: create, join, start, roll, hold, score, and the
refusals with their codes and statuses, each leaving the game as it was."""

from __future__ import annotations

import pytest

from app.rules import MAX_PLAYERS, Box
from app.service.changes import Changes
from app.service.deadlines import DEFAULT_DEADLINES
from app.service.dice import ScriptedDice
from app.service.errors import ConflictError, ForbiddenError, InvalidError, NotFoundError
from app.service.games import GameService
from app.service.lobby import Lobby
from app.service.play import Expect, Play
from app.store.database import Database
from app.store.models import GameStatus
from app.strategy import StrategyProvider
from tests.service.conftest import DICE


def started_pair(service: GameService) -> tuple[str, str, str]:
    """A game of Ann (host, seat 0) and Bob (seat 1), started: its id and both secrets."""
    view, ann = service.create("Ann")
    _, bob = service.join(view.id, "Bob")
    service.start(view.id, ann)
    return view.id, ann, bob


def test_create_seats_the_host_and_waits(service: GameService) -> None:
    view, secret = service.create("  Ann   Lee ", turn_seconds=60)
    assert view.status == GameStatus.WAITING
    assert view.version == 1
    assert view.turn_seconds == 60
    assert [(player.seat, player.name, player.computer) for player in view.players] == [
        (0, "Ann Lee", False)
    ]
    assert service.seat_of(view.id, secret) == 0
    assert service.seat_of(view.id, "not a secret") is None
    assert service.get(view.id) == view


@pytest.mark.parametrize(
    ("name", "turn_seconds", "code"),
    [("   ", None, "invalid_name"), ("x" * 33, None, "invalid_name"), ("Ann", 45, "invalid_timer")],
)
def test_create_refuses_malformed_input(
    service: GameService, name: str, turn_seconds: int | None, code: str
) -> None:
    with pytest.raises(InvalidError) as refused:
        service.create(name, turn_seconds=turn_seconds)
    assert (refused.value.code, refused.value.status) == (code, 422)


def test_join_and_add_computer_take_the_next_seats(service: GameService) -> None:
    view, ann = service.create("Ann")
    joined, bob = service.join(view.id, "Bob")
    assert joined.version == 2
    assert service.seat_of(view.id, bob) == 1
    with_computer = service.add_computer(view.id, ann)
    assert [(player.name, player.computer) for player in with_computer.players] == [
        ("Ann", False),
        ("Bob", False),
        ("Computer 1", True),
    ]
    assert with_computer.version == 3


def test_only_the_host_adds_a_computer_or_starts(service: GameService) -> None:
    view, _ann = service.create("Ann")
    _, bob = service.join(view.id, "Bob")
    for refused_action in (
        lambda: service.add_computer(view.id, bob),
        lambda: service.start(view.id, bob),
        lambda: service.start(view.id, None),
    ):
        with pytest.raises(ForbiddenError) as refused:
            refused_action()
        assert (refused.value.code, refused.value.status) == ("not_host", 403)
    assert service.get(view.id).version == 2


def test_a_full_game_refuses_another_seat(service: GameService) -> None:
    view, _ann = service.create("Ann")
    for number in range(1, MAX_PLAYERS):
        service.join(view.id, f"Player {number}")
    with pytest.raises(ConflictError) as refused:
        service.join(view.id, "One too many")
    assert (refused.value.code, refused.value.status) == ("full", 409)
    assert len(service.get(view.id).players) == MAX_PLAYERS


def test_an_unknown_game_is_404_for_every_use_case(service: GameService) -> None:
    for action in (
        lambda: service.get("no-such-game"),
        lambda: service.join("no-such-game", "Bob"),
        lambda: service.start("no-such-game", "secret"),
        lambda: service.roll("no-such-game", "secret"),
        lambda: service.score("no-such-game", "secret", "chance"),
    ):
        with pytest.raises(NotFoundError) as refused:
            action()
        assert (refused.value.code, refused.value.status) == ("not_found", 404)


def test_start_then_play_a_turn(service: GameService) -> None:
    game_id, ann, bob = started_pair(service)
    started = service.get(game_id)
    assert started.status == GameStatus.PLAYING
    assert started.state.seat == 0
    rolled = service.roll(game_id, ann)
    assert rolled.state.turn.dice == DICE
    assert rolled.state.turn.rolls_used == 1
    held = service.set_hold(game_id, ann, 0, True)
    assert held.state.turn.held == (True, False, False, False, False)
    again = service.roll(game_id, ann, hold=[0, 1])
    assert again.state.turn.dice == (1, 1, 1, 1, 3)  # the held ones kept, three dealt anew
    scored = service.score(game_id, ann, "ones")
    assert scored.players[0].sheet[Box.ONES] == 4
    assert scored.state.seat == 1
    assert scored.version == started.version + 4  # roll, hold, hold and roll, score
    # The script deals on from where Ann's turn left it.
    assert service.roll(game_id, bob).state.turn.dice == (4, 6, 1, 1, 3)


def test_play_refusals_say_why_and_change_nothing(service: GameService) -> None:
    view, ann = service.create("Ann")
    _, bob = service.join(view.id, "Bob")
    with pytest.raises(ConflictError) as refused:
        service.roll(view.id, ann)
    assert (refused.value.code, refused.value.status) == ("not_started", 409)
    service.start(view.id, ann)
    with pytest.raises(ConflictError) as refused:
        service.start(view.id, ann)
    assert refused.value.code == "already_started"
    with pytest.raises(ConflictError) as refused:
        service.join(view.id, "Cy")
    assert refused.value.code == "already_started"

    before = service.get(view.id)
    cases: list[tuple[object, type[Exception], str]] = [
        (lambda: service.roll(view.id, bob), ForbiddenError, "not_your_turn"),
        (lambda: service.roll(view.id, "stranger"), ForbiddenError, "not_your_seat"),
        (lambda: service.score(view.id, ann, "ones"), ConflictError, "illegal"),
        (lambda: service.score(view.id, ann, "sevens"), InvalidError, "invalid_box"),
        (lambda: service.roll(view.id, ann, hold=[0]), ConflictError, "illegal"),
        (
            lambda: service.roll(view.id, ann, expect=Expect(version=before.version - 1)),
            ConflictError,
            "stale",
        ),
    ]
    for action, error, code in cases:
        with pytest.raises(error) as refused_play:
            action()  # type: ignore[operator]
        assert refused_play.value.code == code  # type: ignore[attr-defined]
    assert service.get(view.id) == before

    for _ in range(3):
        service.roll(view.id, ann)
    with pytest.raises(ConflictError) as refused:
        service.roll(view.id, ann)
    assert (refused.value.code, str(refused.value)) == ("illegal", "no rolls left: choose a box")
    with pytest.raises(InvalidError) as malformed:
        service.set_hold(view.id, ann, 5, True)
    assert (malformed.value.code, malformed.value.status) == ("invalid_die", 422)


def test_listeners_hear_each_committed_change_and_no_refusal(service: GameService) -> None:
    heard: list[tuple[str, int]] = []
    service.listeners.append(lambda game_id, version, _view: heard.append((game_id, version)))
    game_id, ann, bob = started_pair(service)
    assert heard == [(game_id, 1), (game_id, 2), (game_id, 3)]
    with pytest.raises(ForbiddenError):
        service.roll(game_id, bob)
    service.roll(game_id, ann)
    assert heard[-1] == (game_id, 4)
    assert len(heard) == 4


def test_lobby_and_play_compose_over_one_path_of_change(
    database: Database, strategy: StrategyProvider
) -> None:
    """Play is not a lobby: both are built over the same :class:`Changes`, and what the lobby
    committed is what play sees, from memory."""
    changes = Changes(database, DEFAULT_DEADLINES)
    dice = ScriptedDice(DICE)
    lobby = Lobby(changes, dice)
    play = Play(changes, dice, strategy)
    assert not isinstance(play, Lobby)
    view, ann = lobby.create("Ann")
    lobby.start(view.id, ann)
    assert changes.snapshots.peek(view.id) is not None
    rolled = play.roll(view.id, ann)
    assert rolled.state.turn.dice == DICE
    assert play.score(view.id, ann, "chance").players[0].sheet[Box.CHANCE] == sum(DICE)


def test_a_swapped_dice_source_is_the_one_every_part_rolls_from(service: GameService) -> None:
    service.dice = ScriptedDice([6])
    view, ann = service.create("Ann")
    service.start(view.id, ann)
    assert service.roll(view.id, ann).state.turn.dice == (6, 6, 6, 6, 6)
    assert service.dice is service.play.dice is service.lobby.dice is service.steps.dice
    assert service.rematches.dice is service.dice
