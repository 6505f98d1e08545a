"""The database tables: a game, its seats, and its action log (the truth the state replays from)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, DateTime, Float, ForeignKey, Integer, String, false, func
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


class Base(DeclarativeBase):
    """Declarative base of every table."""


class GameStatus(StrEnum):
    """A game's lifecycle; the values are what is stored."""

    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"
    ABANDONED = "abandoned"
    """Closed by the server after waiting or stalling too long (see app/store/retention.py)."""


class Reason(StrEnum):
    """Why the server recorded an action in a person's place, or played a computer seat; the
    values are what is stored. An action a player made themself stores NULL."""

    COMPUTER = "computer"
    """A computer seat's own move."""
    DEADLINE = "deadline"
    """Nobody chose a box within the auto-confirm deadline after the third roll."""
    TURN_TIMER = "turn_timer"
    """The turn timer ran out."""
    STAND_IN = "stand_in"
    """The computer stands in for a player who is away."""


class ClosedReason(StrEnum):
    """Why a game was closed as abandoned (the column ``games.closed_reason``)."""

    IDLE = "idle"
    RESTORED = "restored"


class RematchAnswer(StrEnum):
    """A player's part in the rematch offered after a finished game; the values are stored."""

    OFFERED = "offered"
    JOINED = "joined"
    DECLINED = "declined"


class ActionKind(StrEnum):
    """The kinds of logged actions; the values are what is stored."""

    ROLL = "roll"
    HOLD = "hold"
    SCORE = "score"
    STAND_IN = "stand_in"
    """Not a rules action: the others handed the seat to the computer while its player was away."""
    RETURN = "return"
    """Not a rules action: the player came back and took the seat from the computer."""


RULES_KINDS = frozenset({ActionKind.ROLL, ActionKind.HOLD, ActionKind.SCORE})
"""The kinds that the rules replay; the others record who played a seat, and replay skips them."""


class GameRecord(Base):
    """One game. ``version`` grows by one with every change and is the id of live events."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    status: Mapped[str] = mapped_column(String(16), default=GameStatus.WAITING.value, index=True)
    version: Mapped[int] = mapped_column(Integer, default=1)
    turn_seconds: Mapped[int | None] = mapped_column(Integer, default=None)
    rematch_id: Mapped[str | None] = mapped_column(String(16), default=None)
    server_seed: Mapped[str | None] = mapped_column(String(64), default=None)
    """The dice's secret (hex), revealed only once the game is over; None: not verifiable."""
    dice_scheme: Mapped[int | None] = mapped_column(Integer, default=None)
    """How the seeds are combined into each roll's message (``app.fairness``): 2 for games
    created since it, NULL (1) for the games before."""
    closed_reason: Mapped[str | None] = mapped_column(String(16), default=None)
    """Why an abandoned game was closed: ``idle`` (a long pause; NULL in games closed before
    the column) or ``restored`` (the database was restored from a backup while it was played)."""
    previous_id: Mapped[str | None] = mapped_column(String(16), default=None)
    """The finished game this one is the rematch of: its seats are laid out from that game's
    at the start, the starter moved on by one."""
    computer_pace: Mapped[str | None] = mapped_column(String(8), default=None)
    """How fast the computer players move: ``fast``, or NULL for the normal pace."""
    public: Mapped[bool] = mapped_column(default=False, server_default=false(), index=True)
    """Listed on the home page for anyone to join or watch (a quick match's table); a game
    with friends is not."""
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    turn_started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    due_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), default=None, index=True
    )
    """The next moment the server must act (a computer's step, a turn timer, the
    auto-confirm deadline); set with every move, NULL when nothing is pending."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )
    language: Mapped[str | None] = mapped_column(String(8), default=None)
    """The language its host (a quick match's first player) played in: the home page's list
    says it. None for a game made through the API without one."""

    players: Mapped[list[PlayerRecord]] = relationship(
        back_populates="game", order_by="PlayerRecord.seat", cascade="all, delete-orphan"
    )
    actions: Mapped[list[ActionRecord]] = relationship(
        back_populates="game", order_by="ActionRecord.number", cascade="all, delete-orphan"
    )


class PlayerRecord(Base):
    """A seat. People hold theirs by a secret whose SHA-256 is all the database keeps."""

    __tablename__ = "players"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    computer: Mapped[bool] = mapped_column(default=False)
    secret_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    final_total: Mapped[int | None] = mapped_column(Integer, default=None)
    hints: Mapped[bool] = mapped_column(default=False)
    used_hints: Mapped[bool] = mapped_column(default=False)
    client_seed: Mapped[str | None] = mapped_column(String(64), default=None)
    """A person's own seed mixed into the dice, fixed at the start (computers have none)."""
    stand_in: Mapped[bool] = mapped_column(default=False, server_default=false())
    """The computer plays this person's seat until they open the game again."""
    rematch: Mapped[str | None] = mapped_column(String(16), default=None)
    """A :class:`RematchAnswer` once the game is over and a rematch is offered."""
    moved_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    """The seat's previous secret hash, once it moved to another device: that browser is told."""
    person_id: Mapped[str | None] = mapped_column(String(16), default=None, index=True)
    """The player (:class:`PersonRecord`) who sat here; None for a computer, and for a seat
    taken before players were kept."""
    pentas: Mapped[int | None] = mapped_column(Integer, default=None)
    """Pentas scored for points (the 50 and each 100 bonus), set when the game ends."""

    game: Mapped[GameRecord] = relationship(back_populates="players")


class ActionRecord(Base):
    """One action of the log: a roll with its dice, a hold, or a score in a box."""

    __tablename__ = "actions"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    by_computer: Mapped[bool] = mapped_column(default=False)
    reason: Mapped[str | None] = mapped_column(String(16), default=None)
    """A :class:`Reason` when the server played, NULL when the player did."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())

    game: Mapped[GameRecord] = relationship(back_populates="actions")


class ReviewRecord(Base):
    """A finished game's review, kept once computed (for one version of the strategy)."""

    __tablename__ = "reviews"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    strategy: Mapped[str] = mapped_column(String(32))
    data: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class ServiceRun(Base):
    """A span of time a server ran on this database: from its start to when it last said so.

    Retention counts a game's idle time only while some server ran (the union of the runs), so
    a server that was down for a week closes nothing at its next start.
    """

    __tablename__ = "service_runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class MatchEntry(Base):
    """A browser waiting for a quick match: its player's name and seed, and the hash of the
    seat secret it holds already (its cookie), which becomes its seat's once it is matched."""

    __tablename__ = "match_queue"

    secret_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    client_seed: Mapped[str | None] = mapped_column(String(64), default=None)
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    """When the wait began (again, for a player who chose to keep waiting)."""
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    """When its page last asked: an entry no page asks about is not matched, then dropped."""
    game_id: Mapped[str | None] = mapped_column(String(16), default=None)
    """The game it was matched into; None while it waits."""
    person_id: Mapped[str | None] = mapped_column(String(16), default=None)
    """The player waiting, who takes the seat."""
    most: Mapped[int] = mapped_column(Integer, default=4, server_default="4")
    """The most players this one wants at the table: 2 for "two players only", else 4."""
    language: Mapped[str | None] = mapped_column(String(8), default=None)
    """The language of the page that entered: the table's, if this one sits first."""


class PersonRecord(Base):
    """A player, without an account: a browser (or a bot) holds it by a secret whose SHA-256
    is all the database keeps; it is known to others by its public ``id`` and its name."""

    __tablename__ = "people"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(64))
    """The name last played under."""
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    """The rating (Plackett-Luce, :mod:`app.service.ratings`) and its uncertainty."""
    rated_games: Mapped[int] = mapped_column(Integer, default=0)
    link_hash: Mapped[str | None] = mapped_column(String(64), default=None, unique=True)
    """The hash of the one-time link that moves this player to another device, if one is
    open; it dies when used, when another is made, or at ``link_until``."""
    link_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatingRecord(Base):
    """What one rated game did to one player's rating: written once, when the game ends."""

    __tablename__ = "ratings"

    game_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    person_id: Mapped[str] = mapped_column(String(16), primary_key=True, index=True)
    rank: Mapped[int] = mapped_column(Integer)
    """1 for the winner; equal totals share a rank."""
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
