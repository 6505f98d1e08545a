"""Games as of a version, kept in memory, and the Core reads and writes that move them on.

Loading a game through the ORM and replaying its whole log took most of the time of every
request (figures: ``docs/performance.md``, "Store"). A :class:`Snapshot` is the game's row,
its seats and its replayed state at one version; :class:`Snapshots` keeps the newest one of
each recent game. Every read first asks the database for the game's version (one indexed
lookup in the caller's transaction) and uses the kept snapshot only if it is of that
version, so a snapshot is never stale: every change to a game bumps its version (see
``GameRecord``), whoever makes it, in this process or another.

A snapshot's record is a :class:`~app.store.rows.GameRow`: the game's columns and seats
as frozen values, which nobody can change once made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import Connection, insert

from app.rules import Action, Game, Hold, Roll, Score
from app.store.log import (
    ScoreEntry,
    action_row,
    continue_activity,
    is_rules_kind,
    newer_activity,
    replay_activity,
    stored_action,
)
from app.store.models import GameRecord, GameStatus, PlayerRecord, Reason
from app.store.rows import GameRow, SeatRow, seat_columns
from app.store.statements import (
    ACTIONS,
    ACTIONS_AFTER,
    ADVANCING,
    CLIENT_SEED,
    FINAL_TOTAL,
    GAME,
    RESEAT,
    SEATED,
    SEATS,
    hot_statements,
)

LoggedRow = tuple[str, dict[str, Any], str | None]
"""A log entry as a replay takes it: ``(kind, payload, reason)``."""


@dataclass(frozen=True, slots=True)
class Appended:
    """What a write appended to a game's log, and the version it was written on: what another
    process that keeps the game at ``base`` needs to bring it forward (see :func:`follow`)."""

    base: int
    rows: tuple[LoggedRow, ...]


@dataclass(frozen=True)
class Snapshot:
    """A game at one version: its row and seats (``record``), its state, its log length and
    its rolls so far."""

    record: GameRow
    state: Game
    logged: int
    """How many entries its log holds, seat hand-overs included (the next is numbered after)."""
    rolls: int
    """How many of them are rolls: the number of the game's next roll (see app.fairness)."""
    turn_holds: int = 0
    """How many hold changes the log holds since the current turn began (they are capped)."""
    activity: tuple[ScoreEntry, ...] = ()
    """The newest boxes recorded, oldest first: what the "what just happened" log tells."""
    scored: bool = False
    """Whether the change that made this version recorded a box (the newest of ``activity``);
    False for a snapshot read back from the database, which does not tell."""
    appended: Appended | None = field(default=None, compare=False, repr=False)
    """What the write that made this version appended (None for a snapshot made otherwise: a
    load, a change of seats). Never the previous snapshot itself, which would keep every
    version of the game alive."""

    @property
    def version(self) -> int:
        return self.record.version


class StaleWriteError(Exception):
    """The game's row was not at the version the write was planned on."""


def current_version(connection: Connection, game_id: str) -> int | None:
    """The game's version in the connection's transaction, or None if there is no such game.

    In a write transaction (``Database.write_connection``) the game's row is locked first:
    two workers that read then write the same game take turns, so neither plans on a version
    the other is replacing (8 joins at once from two processes otherwise committed two
    changes with the same version). The version check in the UPDATE stays as a backstop.
    """
    if not could_exist(game_id):
        return None
    hot = hot_statements(connection.dialect)
    writing = connection.get_execution_options().get("penta_write", False)
    statement = hot.locked_version if writing else hot.version
    row = statement.fetch_one(connection, {"game_id": game_id})
    return None if row is None else int(row[0])


def _read_row(connection: Connection, game_id: str) -> GameRow | None:
    game = connection.execute(GAME, {"game_id": game_id}).mappings().one_or_none()
    if game is None:
        return None
    seats = tuple(
        SeatRow(**seat) for seat in connection.execute(SEATS, {"game_id": game_id}).mappings()
    )
    return GameRow(**game, players=seats)


def load_snapshot(connection: Connection, game_id: str) -> Snapshot | None:
    """The game read in full from the database and replayed, or None if there is none."""
    record = _read_row(connection, game_id)
    if record is None:
        return None
    rows = connection.execute(ACTIONS, {"game_id": game_id}).all()
    state, logged, activity = replay_activity(record.status, len(record.players), rows)
    actions = _rules_actions(rows)
    return Snapshot(
        record,
        state,
        logged,
        _rolls(actions),
        holds_since_turn_began(0, actions),
        activity,
    )


def could_exist(game_id: str) -> bool:
    """Whether a game could have this id: none has a NUL, which PostgreSQL cannot even be
    asked about (its text holds no NUL: the query would fail, not find nothing)."""
    return "\x00" not in game_id


def catch_up(connection: Connection, kept: Snapshot) -> tuple[Snapshot | None, int]:
    """``kept``, an older snapshot of a game in play, brought to the game as the connection's
    transaction sees it by reading its row and only the log entries after ``kept``'s (another
    worker made those moves); None if the game is gone. Also how many entries were read."""
    record = _read_row(connection, kept.record.id)
    if record is None:
        return None, 0
    rows = connection.execute(ACTIONS_AFTER, {"game_id": record.id, "after": kept.logged}).all()
    return _continued(kept, record, rows), len(rows)


def can_follow(kept: Snapshot, appended: Appended) -> bool:
    """Whether ``kept`` is the snapshot the write that ``appended`` tells was made on: of its
    version, and of a game in play (a waiting game's log is empty: nothing to go on from)."""
    return kept.version == appended.base and kept.record.status == GameStatus.PLAYING


def follow(kept: Snapshot, record: GameRow, appended: Appended) -> Snapshot:
    """``kept`` brought forward by a write another process made on it (``appended`` is what
    it logged, ``record`` the row it left): the snapshot that write made, with no read.
    ValueError if ``kept`` is not of the version written on, or not of a game in play (a
    waiting game's log is empty: there is nothing to go on from)."""
    if not can_follow(kept, appended):
        raise ValueError("the kept snapshot is not the one written on")
    if record.version <= appended.base:
        raise ValueError("a write moves the version on")
    snapshot = _continued(kept, record, appended.rows)
    return replace(snapshot, scored=snapshot.state.scored_turns != kept.state.scored_turns)


def _continued(kept: Snapshot, record: GameRow, rows: Sequence[LoggedRow]) -> Snapshot:
    """``kept`` with the ``rows`` logged after it, and ``record``: the game's row after them."""
    state, logged, activity = continue_activity(kept.state, kept.logged, kept.activity, rows)
    actions = _rules_actions(rows)
    return Snapshot(
        record,
        state,
        logged,
        kept.rolls + _rolls(actions),
        holds_since_turn_began(kept.turn_holds, actions),
        activity,
    )


def read_actions(connection: Connection, game_id: str) -> list[Action]:
    """The game's rules actions in order (its log without hand-overs and returns)."""
    if not could_exist(game_id):
        return []
    return _rules_actions(connection.execute(ACTIONS, {"game_id": game_id}).all())


def _rules_actions(rows: Sequence[Any]) -> list[Action]:
    return [stored_action(kind, payload) for kind, payload, *_ in rows if is_rules_kind(kind)]


def holds_since_turn_began(holds: int, actions: Sequence[Action]) -> int:
    """The hold changes of the current turn after ``actions``, ``holds`` before them."""
    for action in actions:
        if isinstance(action, Score):
            holds = 0
        elif isinstance(action, Hold):
            holds += 1
    return holds


def insert_game(connection: Connection, record: GameRow, state: Game) -> Snapshot:
    """Insert a new game's row and seats in the connection's transaction; its snapshot,
    whose state is ``state``."""
    connection.execute(insert(GameRecord), [record.columns()])
    connection.execute(insert(PlayerRecord), [seat_columns(seat) for seat in record.players])
    return Snapshot(record, state, 0, 0)


def snapshot_of(
    record: GameRecord, state: Game, kept: Snapshot | None = None, *, appended: int = 0
) -> Snapshot:
    """The snapshot of an ORM record loaded with its seats (not its log) and its state. The
    log is ``kept``'s, the snapshot the game was at before this change of its row or seats
    (its length, rolls, hold changes and activity carry over), plus ``appended`` entries that
    are no rules actions (a seat handed over); ``kept`` is None for a log still empty.
    No log is read or replayed: a game may have a long one."""
    if kept is None:
        return Snapshot(GameRow.of(record), state, appended, 0)
    return Snapshot(
        GameRow.of(record),
        state,
        kept.logged + appended,
        kept.rolls,
        kept.turn_holds,
        kept.activity,
    )


def _rolls(actions: Sequence[Action]) -> int:
    return sum(isinstance(action, Roll) for action in actions)


def write_actions(
    connection: Connection,
    snapshot: Snapshot,
    seat: int,
    actions: Sequence[Action],
    state: Game,
    changes: Mapping[str, Any],
    *,
    reason: Reason | None,
    final_totals: Mapping[int, int] | None = None,
) -> Snapshot:
    """Log ``actions`` (by ``seat``; none when the game starts) after the snapshot's log and
    update the game's row with ``changes`` (``version`` among them; any of ``ADVANCING``),
    in the connection's transaction; the snapshot that results.

    The row is updated only if it is still at the snapshot's version (else
    :class:`StaleWriteError`), so a write planned on an old snapshot can never land. The
    snapshot tells what was appended, on which version: the other processes bring their
    copies forward from that (see :func:`follow`).
    """
    record = snapshot.record
    rows: list[dict[str, Any]] = []
    for number, action in enumerate(actions, start=snapshot.logged + 1):
        kind, payload = action_row(action)
        rows.append(
            {
                "game_id": record.id,
                "number": number,
                "seat": seat,
                "kind": kind.value,
                "payload": payload,
                "by_computer": reason is not None,
                "reason": None if reason is None else reason.value,
            }
        )
    values = {column: changes.get(column, getattr(record, column)) for column in ADVANCING}
    if not changes.keys() <= values.keys():
        raise ValueError(f"an action changes only {', '.join(ADVANCING)}")
    hot = hot_statements(connection.dialect)
    advance = {"of_game": record.id, "of_version": record.version, **values}
    if hot.advance.run_then_many(connection, advance, hot.log, rows) != 1:
        raise StaleWriteError(record.id)
    if final_totals:
        connection.execute(
            FINAL_TOTAL,
            [
                {"of_game": record.id, "of_seat": seat_number, "total": total}
                for seat_number, total in final_totals.items()
            ],
        )
    totals = final_totals or {}
    seats = tuple(
        replace(player, final_total=totals[player.seat]) if player.seat in totals else player
        for player in record.players
    )
    activity = newer_activity(
        snapshot.activity, snapshot.state, snapshot.logged + 1, actions, reason, state
    )
    return Snapshot(
        replace(record, **changes, players=seats),
        state,
        snapshot.logged + len(rows),
        snapshot.rolls + _rolls(actions),
        holds_since_turn_began(snapshot.turn_holds, actions),
        activity,
        scored=state.scored_turns != snapshot.state.scored_turns,
        appended=Appended(
            record.version, tuple((row["kind"], row["payload"], row["reason"]) for row in rows)
        ),
    )


def write_client_seeds(
    connection: Connection, snapshot: Snapshot, seeds: Mapping[int, str]
) -> Snapshot:
    """Set the client seeds of the seats in ``seeds`` (seat to seed), in the connection's
    transaction (the same one as the change that bumps the game's version); the snapshot
    with them."""
    if not seeds:
        return snapshot
    connection.execute(
        CLIENT_SEED,
        [
            {"of_game": snapshot.record.id, "of_seat": seat, "seed": seed}
            for seat, seed in seeds.items()
        ],
    )
    seats = tuple(
        replace(player, client_seed=seeds[player.seat]) if player.seat in seeds else player
        for player in snapshot.record.players
    )
    return replace(snapshot, record=replace(snapshot.record, players=seats))


def write_seat_order(connection: Connection, snapshot: Snapshot, order: Sequence[int]) -> Snapshot:
    """Lay a waiting game's seats out anew: seat ``i`` takes the player of seat ``order[i]``
    (name, secret, seed: every column but the seat's number), in the connection's
    transaction; the snapshot with them. It tells no write another process could follow."""
    players = snapshot.record.players
    if sorted(order) != list(range(len(players))):
        raise ValueError("an order is a permutation of the seats")
    seats = tuple(replace(players[old], seat=new) for new, old in enumerate(order))
    connection.execute(
        RESEAT,
        [
            {"of_game": seat.game_id, "of_seat": seat.seat}
            | {column: getattr(seat, column) for column in SEATED}
            for seat in seats
        ],
    )
    return replace(snapshot, record=replace(snapshot.record, players=seats), appended=None)
