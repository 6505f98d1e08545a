"""The current version of many games in one query: what a live-update resync compares with."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, select

from app.store.models import GameRecord

_BATCH = 500
"""Ids per query: far below every database's limit on bound parameters."""


def current_versions(connection: Connection, game_ids: Sequence[str]) -> dict[str, int]:
    """Each existing game's version (a deleted game is left out)."""
    versions: dict[str, int] = {}
    for start in range(0, len(game_ids), _BATCH):
        batch = game_ids[start : start + _BATCH]
        rows = connection.execute(
            select(GameRecord.id, GameRecord.version).where(GameRecord.id.in_(batch))
        )
        versions.update({game_id: version for game_id, version in rows})
    return versions
