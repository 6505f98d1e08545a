"""The quick match's queue in the database, so that every worker sees the same one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select

from app.store.database import Database
from app.store.models import (
    ActionKind,
    ActionRecord,
    GameRecord,
    GameStatus,
    MatchEntry,
    PlayerRecord,
)


@dataclass(frozen=True)
class Waiting:
    """One entry as the service sees it."""

    secret_hash: str
    name: str
    client_seed: str | None
    joined_at: datetime
    game_id: str | None
    person_id: str | None
    most: int = 4
    """The most players this one wants at the table."""
    language: str | None = None
    """The language of the page that entered."""


def _waiting(entry: MatchEntry) -> Waiting:
    return Waiting(
        entry.secret_hash,
        entry.name,
        entry.client_seed,
        entry.joined_at,
        entry.game_id,
        entry.person_id,
        entry.most,
        entry.language,
    )


class MatchQueue:
    """Entries by the hash of their browser's secret; each change one write transaction."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def enter(
        self,
        secret_hash: str,
        name: str,
        client_seed: str | None,
        now: datetime,
        person_id: str | None = None,
        most: int = 4,
        language: str | None = None,
    ) -> None:
        with self.database.writing() as session:
            session.add(
                MatchEntry(
                    secret_hash=secret_hash,
                    name=name,
                    client_seed=client_seed,
                    joined_at=now,
                    seen_at=now,
                    person_id=person_id,
                    most=most,
                    language=language,
                )
            )

    def size(self) -> int:
        with self.database.reading() as session:
            return int(session.scalar(select(func.count()).select_from(MatchEntry)) or 0)

    def waiting_count(self) -> int:
        """The entries not yet at a table (a matched one stays until it is forgotten)."""
        with self.database.reading() as session:
            waiting = select(func.count()).where(MatchEntry.game_id.is_(None))
            return int(session.scalar(waiting) or 0)

    def look(self, secret_hash: str, now: datetime, *, again: bool = False) -> Waiting | None:
        """The entry of ``secret_hash``, noted as seen at ``now`` (and its wait begun anew
        with ``again``); None if there is none (it was dropped, or never was)."""
        with self.database.writing() as session:
            entry = session.get(MatchEntry, secret_hash)
            if entry is None:
                return None
            entry.seen_at = now
            if again and entry.game_id is None:
                entry.joined_at = now
            return _waiting(entry)

    def leave(self, secret_hash: str) -> None:
        with self.database.writing() as session:
            session.execute(delete(MatchEntry).where(MatchEntry.secret_hash == secret_hash))

    def waiting_since(self, fresh: datetime) -> list[Waiting]:
        """The entries still waiting whose page asked since ``fresh``, first come first."""
        with self.database.reading() as session:
            entries = session.scalars(
                select(MatchEntry)
                .where(MatchEntry.game_id.is_(None), MatchEntry.seen_at >= fresh)
                .order_by(MatchEntry.joined_at)
            )
            return [_waiting(entry) for entry in entries]

    def match(
        self,
        fresh: datetime,
        choose: Callable[[list[Waiting]], list[Waiting]],
        make_game: Callable[[list[Waiting]], GameRecord],
        *,
        forget_before: datetime,
    ) -> str | None:
        """In one write: drop the entries nobody asked about since ``forget_before``, let
        ``choose`` pick among those waiting and seen since ``fresh`` (first come first), and
        if it picks any, add the game ``make_game`` builds for them and mark them matched
        into it. The game's id, or None."""
        with self.database.writing() as session:
            session.execute(delete(MatchEntry).where(MatchEntry.seen_at < forget_before))
            entries = list(
                session.scalars(
                    select(MatchEntry)
                    .where(MatchEntry.game_id.is_(None), MatchEntry.seen_at >= fresh)
                    .order_by(MatchEntry.joined_at)
                )
            )
            chosen = choose([_waiting(entry) for entry in entries])
            if not chosen:
                return None
            record = make_game(chosen)
            session.add(record)
            picked = {waiting.secret_hash for waiting in chosen}
            for entry in entries:
                if entry.secret_hash in picked:
                    entry.game_id = record.id
            return record.id


FORGET_AFTER = timedelta(seconds=30)
"""An entry whose page has not asked for this long is dropped (matched or not)."""


@dataclass(frozen=True)
class OpenTable:
    """A public game as the home page lists it."""

    game_id: str
    status: str
    names: tuple[str, ...]
    scored: int
    """Boxes scored so far, by every seat: the round is ``scored // len(names) + 1``."""
    turn_seconds: int | None
    language: str | None = None


def open_tables(database: Database, limit: int) -> list[OpenTable]:
    """The newest public games waiting or being played, ``limit`` at most."""
    with database.reading() as session:
        games = session.execute(
            select(GameRecord.id, GameRecord.status, GameRecord.turn_seconds, GameRecord.language)
            .where(
                GameRecord.public.is_(True),
                GameRecord.status.in_([GameStatus.WAITING.value, GameStatus.PLAYING.value]),
            )
            .order_by(GameRecord.created_at.desc(), GameRecord.id)
            .limit(limit)
        ).all()
        ids = [game.id for game in games]
        if not ids:
            return []
        names: dict[str, list[str]] = {game_id: [] for game_id in ids}
        for game_id, name in session.execute(
            select(PlayerRecord.game_id, PlayerRecord.name)
            .where(PlayerRecord.game_id.in_(ids))
            .order_by(PlayerRecord.game_id, PlayerRecord.seat)
        ):
            names[game_id].append(name)
        counted = session.execute(
            select(ActionRecord.game_id, func.count())
            .where(ActionRecord.game_id.in_(ids), ActionRecord.kind == ActionKind.SCORE.value)
            .group_by(ActionRecord.game_id)
        )
        scored = {game_id: count for game_id, count in counted}
    return [
        OpenTable(
            game.id,
            game.status,
            tuple(names[game.id]),
            int(scored.get(game.id, 0)),
            game.turn_seconds,
            game.language,
        )
        for game in games
    ]
