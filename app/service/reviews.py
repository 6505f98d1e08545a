"""Reviews of finished games, computed once from the action log and kept in the database."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from app.analysis.review import Decision, PlayerReview, review
from app.service.changes import not_found
from app.service.errors import ConflictError, UnavailableError
from app.service.views import GameView
from app.store.database import Database
from app.store.game_store import NoSuchGame
from app.store.reports import StoredReview, save_review, whole_game
from app.strategy import StrategyProvider, fingerprint


def game_review(
    database: Database, provider: StrategyProvider, game_id: str
) -> tuple[GameView, tuple[PlayerReview, ...]]:
    """The game and its review; 409 before the game is over, 503 while the table builds."""
    try:
        game = whole_game(database, game_id)
    except NoSuchGame:
        raise not_found() from None
    view = GameView.of(game.record, game.state)
    if not view.is_finished:
        raise ConflictError("not_finished", "review_not_finished")
    stored, actions = game.review, game.actions
    key = fingerprint()
    if stored is not None and stored.strategy == key:
        return view, _decode(stored.data)
    strategy = provider.current()
    if not strategy.is_optimal:
        raise UnavailableError("not_ready")
    players = review(len(view.players), actions, strategy)
    save_review(database, game_id, StoredReview(key, _encode(players)))
    return view, players


def _encode(players: tuple[PlayerReview, ...]) -> list[dict[str, Any]]:
    return [asdict(player) for player in players]


def _decode(data: list[dict[str, Any]]) -> tuple[PlayerReview, ...]:
    return tuple(
        PlayerReview(
            seat=player["seat"],
            total=player["total"],
            start_expected=player["start_expected"],
            decisions=tuple(
                Decision(**{**decision, "dice": tuple(decision["dice"])})
                for decision in player["decisions"]
            ),
        )
        for player in data
    )
