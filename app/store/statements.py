"""The Core statements of the store, built once, and the ones every move runs compiled for the
driver's cursor (see :mod:`app.store.driver`).

Through an ORM session the same reads and writes cost several times as much (its transaction,
identity map and bulk paths), more than the work itself (``docs/performance.md``, "Store").
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Dialect, bindparam, insert, select, update

from app.store.driver import DriverStatement
from app.store.models import ActionRecord, GameRecord, PlayerRecord

_VERSION = select(GameRecord.version).where(GameRecord.id == bindparam("game_id"))
_LOCKED_VERSION = _VERSION.with_for_update()
"""In a write: the game's row is this transaction's until it ends (SQLite compiles the
``FOR UPDATE`` away, its ``BEGIN IMMEDIATE`` holding the whole database already)."""
GAME = select(GameRecord.__table__).where(GameRecord.id == bindparam("game_id"))
SEATS = (
    select(PlayerRecord.__table__)
    .where(PlayerRecord.game_id == bindparam("game_id"))
    .order_by(PlayerRecord.seat)
)
ACTIONS = (
    select(ActionRecord.kind, ActionRecord.payload, ActionRecord.reason)
    .where(ActionRecord.game_id == bindparam("game_id"))
    .order_by(ActionRecord.number)
)
ACTIONS_AFTER = ACTIONS.where(ActionRecord.number > bindparam("after"))
ADVANCING = (
    "version",
    "status",
    "updated_at",
    "started_at",
    "turn_started_at",
    "finished_at",
    "due_at",
)
"""The columns of a game's row that a move (or the start) may change."""
_ADVANCE = (
    update(GameRecord)
    .where(GameRecord.id == bindparam("of_game"), GameRecord.version == bindparam("of_version"))
    .values({column: bindparam(column) for column in ADVANCING})
)
_LOG = insert(ActionRecord)
_LOGGED = ("game_id", "number", "seat", "kind", "payload", "by_computer", "reason")
FINAL_TOTAL = (
    update(PlayerRecord)
    .where(PlayerRecord.game_id == bindparam("of_game"), PlayerRecord.seat == bindparam("of_seat"))
    .values(final_total=bindparam("total"))
)
CLIENT_SEED = (
    update(PlayerRecord)
    .where(PlayerRecord.game_id == bindparam("of_game"), PlayerRecord.seat == bindparam("of_seat"))
    .values(client_seed=bindparam("seed"))
)
SEATED = tuple(
    column.name
    for column in PlayerRecord.__table__.columns
    if column.name not in ("game_id", "seat")
)
"""A seat's columns that go with its player when the seats are laid out anew (a rematch)."""
RESEAT = (
    update(PlayerRecord)
    .where(PlayerRecord.game_id == bindparam("of_game"), PlayerRecord.seat == bindparam("of_seat"))
    .values({column: bindparam(column) for column in SEATED})
)
SEAT_NAMES = (
    select(PlayerRecord.seat, PlayerRecord.name, PlayerRecord.computer)
    .where(PlayerRecord.game_id == bindparam("game_id"))
    .order_by(PlayerRecord.seat)
)
"""A game's seats: their numbers, names and whether computers."""


@dataclass(frozen=True)
class HotStatements:
    """The statements of every move, compiled for one dialect (see :mod:`app.store.driver`)."""

    version: DriverStatement
    locked_version: DriverStatement
    advance: DriverStatement
    log: DriverStatement


_HOT: dict[tuple[str, str, str], HotStatements] = {}


def hot_statements(dialect: Dialect) -> HotStatements:
    """The statements of every move for ``dialect``, compiled at its first use (one set per
    dialect, driver and parameter style: a process has one or two)."""
    key = (dialect.name, dialect.driver, dialect.paramstyle)
    hot = _HOT.get(key)
    if hot is None:
        hot = _HOT[key] = HotStatements(
            DriverStatement(_VERSION, dialect),
            DriverStatement(_LOCKED_VERSION, dialect),
            DriverStatement(_ADVANCE, dialect),
            DriverStatement(_LOG, dialect, column_keys=_LOGGED),
        )
    return hot
