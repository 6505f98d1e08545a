"""Reviews of finished games, computed once from the action log and kept in the database."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from app.service.errors import ConflictError, UnavailableError
from app.service.records import load_game
from app.service.review import Decision, PlayerReview, review
from app.service.views import GameView
from app.store.database import Database
from app.store.log import replay, rules_actions
from app.store.models import ReviewRecord
from app.store.rows import GameRow
from app.strategy import StrategyProvider, fingerprint


def game_review(
    database: Database, provider: StrategyProvider, game_id: str
) -> tuple[GameView, tuple[PlayerReview, ...]]:
    """The game and its review; 409 before the game is over, 503 while the table builds."""
    with database.reading() as session:
        record = load_game(session, game_id)
        view = GameView.of(GameRow.of(record), replay(record))
        if not view.is_finished:
            raise ConflictError("not_finished", "review_not_finished")
        stored = session.get(ReviewRecord, game_id)
        actions = rules_actions(record.actions)
    key = fingerprint()
    if stored is not None and stored.strategy == key:
        return view, _decode(stored.data)
    strategy = provider.current()
    if not strategy.is_optimal:
        raise UnavailableError("not_ready")
    players = review(len(view.players), actions, strategy)
    with database.writing() as session:
        session.merge(ReviewRecord(game_id=game_id, strategy=key, data=_encode(players)))
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
