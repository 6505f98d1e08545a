"""Players without accounts in the database: who they are, the games they sat in, their
ratings; and the statements that rate a game in the transaction of its last move."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import (
    ColumnElement,
    Connection,
    and_,
    bindparam,
    case,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.orm import aliased

from app.store.database import Database
from app.store.models import GameRecord, GameStatus, PersonRecord, PlayerRecord, RatingRecord


@dataclass(frozen=True)
class Person:
    """A player as the service sees it (never its secret's hash)."""

    id: str
    name: str
    mu: float
    sigma: float
    rated_games: int
    created_at: datetime


def _person(record: PersonRecord) -> Person:
    return Person(
        record.id, record.name, record.mu, record.sigma, record.rated_games, record.created_at
    )


@dataclass(frozen=True)
class Seat:
    """One seat of a game a player sat in, with the game's other seats."""

    game_id: str
    status: str
    public: bool
    seat: int
    created_at: datetime
    finished_at: datetime | None
    names: tuple[str, ...]
    totals: tuple[int | None, ...]
    pentas: int | None

    @property
    def total(self) -> int | None:
        return self.totals[self.seat]

    @property
    def rank(self) -> int | None:
        """1 for the best total (shared on a tie); None before the end."""
        if self.total is None:
            return None
        return 1 + sum(other is not None and other > self.total for other in self.totals)

    @property
    def won(self) -> bool:
        """First of two or more (a tie for first counts)."""
        return len(self.totals) >= 2 and self.rank == 1


def _visible(viewer: str | bool | None) -> ColumnElement[bool]:
    """A game a viewer may see on someone else's profile: a public one, or one they sat in."""
    if viewer is None or viewer is False:
        return GameRecord.public.is_(True)
    theirs = select(PlayerRecord.game_id).where(PlayerRecord.person_id == viewer)
    return or_(GameRecord.public.is_(True), PlayerRecord.game_id.in_(theirs))


@dataclass(frozen=True)
class Totals:
    """A player's finished games, added up."""

    played: int
    wins: int
    """Games of two or more won (a tie for first counts)."""
    average: float | None
    best: int | None
    pentas: int


@dataclass(frozen=True)
class RatingChange:
    game_id: str
    rank: int
    mu_before: float
    mu: float
    sigma: float
    created_at: datetime


class People:
    """Players, each change one write transaction."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def identify(
        self,
        secret_hash: str | None,
        name: str | None,
        moment: datetime,
        *,
        fresh: tuple[str, str],
        rating: tuple[float, float],
    ) -> tuple[Person, bool]:
        """The player holding ``secret_hash``, seen now and named ``name`` (if given); or, if
        there is none, a new one with the id and secret hash ``fresh`` and the first
        ``rating``. The player, and whether it is new."""
        with self.database.writing() as session:
            record = None
            if secret_hash is not None:
                record = session.scalars(
                    select(PersonRecord).where(PersonRecord.secret_hash == secret_hash)
                ).one_or_none()
            created = record is None
            if record is None:
                person_id, fresh_hash = fresh
                record = PersonRecord(
                    id=person_id,
                    secret_hash=fresh_hash,
                    name=name or "",
                    mu=rating[0],
                    sigma=rating[1],
                    rated_games=0,
                    created_at=moment,
                    seen_at=moment,
                )
                session.add(record)
            else:
                record.seen_at = moment
                if name:
                    record.name = name
            session.flush()
            return _person(record), created

    def find(self, secret_hash: str) -> Person | None:
        with self.database.reading() as session:
            record = session.scalars(
                select(PersonRecord).where(PersonRecord.secret_hash == secret_hash)
            ).one_or_none()
            return None if record is None else _person(record)

    def get(self, person_id: str) -> Person | None:
        with self.database.reading() as session:
            record = session.get(PersonRecord, person_id)
            return None if record is None else _person(record)

    def rename(self, secret_hash: str, name: str) -> Person | None:
        with self.database.writing() as session:
            record = session.scalars(
                select(PersonRecord).where(PersonRecord.secret_hash == secret_hash)
            ).one_or_none()
            if record is None:
                return None
            record.name = name
            return _person(record)

    def open_link(self, secret_hash: str, link_hash: str, until: datetime) -> bool:
        """Open a one-time link for the player (closing any other); False: no such player."""
        with self.database.writing() as session:
            opened = session.execute(
                update(PersonRecord)
                .where(PersonRecord.secret_hash == secret_hash)
                .values(link_hash=link_hash, link_until=until)
            )
            return bool(opened.rowcount)  # type: ignore[attr-defined]

    def linked(self, link_hash: str, moment: datetime) -> Person | None:
        """The player whose open link has ``link_hash``, if it is still alive at ``moment``."""
        with self.database.reading() as session:
            record = session.scalars(
                select(PersonRecord).where(
                    PersonRecord.link_hash == link_hash, PersonRecord.link_until > moment
                )
            ).one_or_none()
            return None if record is None else _person(record)

    def take_link(self, link_hash: str, secret_hash: str, moment: datetime) -> Person | None:
        """Move the player of the live link ``link_hash`` to the holder of ``secret_hash``:
        its old secret and the link die. None if there is no live link."""
        with self.database.writing() as session:
            record = session.scalars(
                select(PersonRecord)
                .where(PersonRecord.link_hash == link_hash, PersonRecord.link_until > moment)
                .with_for_update()
            ).one_or_none()
            if record is None:
                return None
            record.secret_hash = secret_hash
            record.link_hash = None
            record.link_until = None
            record.seen_at = moment
            return _person(record)

    def seats(
        self,
        person_id: str,
        *,
        finished: bool,
        limit: int,
        visible_to: str | bool | None = True,
    ) -> list[Seat]:
        """The player's seats in games in play or waiting (``finished`` False) or finished,
        newest first, ``limit`` at most. ``visible_to``: True for all of them, else the public
        games and the private ones the player of that id (None: nobody) sat in too."""
        with self.database.reading() as session:
            query = (
                select(
                    PlayerRecord.game_id,
                    GameRecord.status,
                    GameRecord.public,
                    PlayerRecord.seat,
                    GameRecord.created_at,
                    GameRecord.finished_at,
                    PlayerRecord.pentas,
                )
                .join(GameRecord, GameRecord.id == PlayerRecord.game_id)
                .where(PlayerRecord.person_id == person_id)
                .limit(limit)
            )
            if finished:
                query = query.where(GameRecord.status == GameStatus.FINISHED.value).order_by(
                    GameRecord.finished_at.desc(), GameRecord.id
                )
            else:
                query = query.where(
                    GameRecord.status.in_([GameStatus.WAITING.value, GameStatus.PLAYING.value])
                ).order_by(GameRecord.updated_at.desc(), GameRecord.id)
            if visible_to is not True:
                query = query.where(_visible(visible_to))
            rows = session.execute(query).all()
            ids = [row.game_id for row in rows]
            seats: dict[str, list[tuple[str, int | None]]] = {game_id: [] for game_id in ids}
            for game_id, name, total in session.execute(
                select(PlayerRecord.game_id, PlayerRecord.name, PlayerRecord.final_total)
                .where(PlayerRecord.game_id.in_(ids))
                .order_by(PlayerRecord.game_id, PlayerRecord.seat)
            ):
                seats[game_id].append((name, total))
        return [
            Seat(
                game_id=row.game_id,
                status=row.status,
                public=row.public,
                seat=row.seat,
                created_at=row.created_at,
                finished_at=row.finished_at,
                names=tuple(name for name, _total in seats[row.game_id]),
                totals=tuple(total for _name, total in seats[row.game_id]),
                pentas=row.pentas,
            )
            for row in rows
        ]

    def totals(self, person_id: str, *, public_only: bool) -> Totals:
        """The player's finished games added up (in the database: a player may have
        thousands); only the public ones with ``public_only``."""
        other = aliased(PlayerRecord)
        best = (
            select(func.max(other.final_total))
            .where(other.game_id == PlayerRecord.game_id)
            .scalar_subquery()
        )
        seated = select(func.count()).where(other.game_id == PlayerRecord.game_id).scalar_subquery()
        won = case((and_(PlayerRecord.final_total >= best, seated >= 2), 1), else_=0)
        query = (
            select(
                func.count(),
                func.coalesce(func.sum(won), 0),
                func.avg(PlayerRecord.final_total),
                func.max(PlayerRecord.final_total),
                func.coalesce(func.sum(PlayerRecord.pentas), 0),
            )
            .join(GameRecord, GameRecord.id == PlayerRecord.game_id)
            .where(
                PlayerRecord.person_id == person_id,
                GameRecord.status == GameStatus.FINISHED.value,
            )
        )
        if public_only:
            query = query.where(GameRecord.public.is_(True))
        with self.database.reading() as session:
            played, wins, average, best_total, pentas = session.execute(query).one()
        return Totals(
            played=int(played),
            wins=int(wins),
            average=None if average is None else float(average),
            best=best_total,
            pentas=int(pentas),
        )

    def ratings(self, person_id: str, limit: int) -> list[RatingChange]:
        """The player's newest rating changes."""
        with self.database.reading() as session:
            records = session.scalars(
                select(RatingRecord)
                .where(RatingRecord.person_id == person_id)
                .order_by(RatingRecord.created_at.desc(), RatingRecord.game_id)
                .limit(limit)
            )
            return [
                RatingChange(r.game_id, r.rank, r.mu_before, r.mu, r.sigma, r.created_at)
                for r in records
            ]

    def leaderboard(self, min_games: int, limit: int) -> list[Person]:
        """The players with at least ``min_games`` rated games, best rating first."""
        with self.database.reading() as session:
            records = session.scalars(
                select(PersonRecord)
                .where(PersonRecord.rated_games >= min_games)
                .order_by(PersonRecord.mu.desc(), PersonRecord.id)
                .limit(limit)
            )
            return [_person(record) for record in records]

    def count(self) -> int:
        with self.database.reading() as session:
            return int(session.scalar(select(func.count()).select_from(PersonRecord)) or 0)


# -- in the transaction of a game's last move (Core, on the move's connection) -------------

_RATINGS_OF = (
    select(PersonRecord.id, PersonRecord.mu, PersonRecord.sigma)
    .where(PersonRecord.id.in_(bindparam("ids", expanding=True)))
    .order_by(PersonRecord.id)
    .with_for_update()
)
"""The players' ratings, their rows this transaction's until it ends (in one order, so that
two games ending at once cannot deadlock; SQLite's write lock holds the whole database)."""
_RATE = (
    update(PersonRecord)
    .where(PersonRecord.id == bindparam("of_person"))
    .values(mu=bindparam("mu"), sigma=bindparam("sigma"), rated_games=PersonRecord.rated_games + 1)
)
_PENTAS = (
    update(PlayerRecord)
    .where(PlayerRecord.game_id == bindparam("of_game"), PlayerRecord.seat == bindparam("of_seat"))
    .values(pentas=bindparam("pentas"))
)


def ratings_of(connection: Connection, person_ids: Sequence[str]) -> dict[str, tuple[float, float]]:
    """The ratings (mu, sigma) of the players, held until the transaction ends."""
    rows = connection.execute(_RATINGS_OF, {"ids": list(person_ids)})
    return {person_id: (mu, sigma) for person_id, mu, sigma in rows}


@dataclass(frozen=True)
class Rated:
    """What a game did to one player's rating."""

    person_id: str
    rank: int
    before: tuple[float, float]
    after: tuple[float, float]


def write_ratings(
    connection: Connection, game_id: str, rated: Sequence[Rated], moment: datetime
) -> None:
    """Record the game's rating changes (once: the key is the game and the player) and set
    the players' new ratings."""
    connection.execute(
        insert(RatingRecord),
        [
            {
                "game_id": game_id,
                "person_id": change.person_id,
                "rank": change.rank,
                "mu_before": change.before[0],
                "sigma_before": change.before[1],
                "mu": change.after[0],
                "sigma": change.after[1],
                "created_at": moment,
            }
            for change in rated
        ],
    )
    connection.execute(
        _RATE,
        [
            {"of_person": change.person_id, "mu": change.after[0], "sigma": change.after[1]}
            for change in rated
        ],
    )


def write_pentas(connection: Connection, game_id: str, pentas: Mapping[int, int]) -> None:
    """Set the Pentas each seat scored, at the end of the game."""
    connection.execute(
        _PENTAS,
        [{"of_game": game_id, "of_seat": seat, "pentas": count} for seat, count in pentas.items()],
    )
