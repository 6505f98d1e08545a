"""The snapshot cache: the newest snapshot of each recent game, valid while its version is
the row's; one behind is caught up from the log entries after it (see app.store.snapshots),
or brought forward by another process's move as its bus message tells it, with no read."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from app.store.models import GameStatus
from app.store.rows import with_secrets
from app.store.snapshots import (
    Appended,
    Snapshot,
    can_follow,
    catch_up,
    current_version,
    follow,
    load_snapshot,
)

CACHE_SIZE = 4096
"""Games kept; beyond it the least recently used is dropped (and loaded again if needed)."""


@dataclass
class CacheCounts:
    """What :class:`Snapshots` did, since it was made (for tests and benchmarks)."""

    hits: int = 0
    """Loads answered by the kept snapshot, at the game's version."""
    catch_ups: int = 0
    """Loads of a game kept at an older version (another process moved it on)."""
    full_loads: int = 0
    """Loads that read and replayed the whole log."""
    entries_read: int = 0
    """Log entries read by the catch-ups and the full loads."""
    followed: int = 0
    """Other processes' moves kept as their messages told them (no read)."""
    unfollowed: int = 0
    """Their moves that could not be (the game not kept at the version written on, or not in
    play): the next read of the game catches up from the database."""


class Snapshots:
    """The newest snapshot of each recent game, shared by every thread of the process."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self.counts = CacheCounts()
        self._kept: OrderedDict[str, Snapshot] = OrderedDict()
        self._shared: set[str] = set()
        self._lock = threading.Lock()
        self.shared_listeners: list[Callable[[], None]] = []
        """Told (from any thread) when the set of :meth:`shared_ids` changes."""

    def load(self, connection: Connection, game_id: str) -> Snapshot | None:
        """The game as the connection's transaction sees it (None if there is no such game):
        the kept snapshot when it is of the current version; caught up from the log when it
        is older (another worker moved the game on: only the entries after it are read,
        not the whole log replayed); else one read in full."""
        version = current_version(connection, game_id)
        if version is None:
            return None
        with self._lock:
            kept = self._kept.get(game_id)
            if kept is not None and kept.version == version:
                self._kept.move_to_end(game_id)
                self.counts.hits += 1
                return kept
        # A waiting game's log is empty, and a kept snapshot of it has nothing to go on from.
        if kept is not None and kept.version < version and kept.record.status == GameStatus.PLAYING:
            loaded, read = catch_up(connection, kept)
            caught_up = 1
            self._share(game_id)
        else:
            loaded = load_snapshot(connection, game_id)
            read, caught_up = (0 if loaded is None else loaded.logged), 0
        with self._lock:
            self.counts.catch_ups += caught_up
            self.counts.full_loads += 1 - caught_up
            self.counts.entries_read += read
        if loaded is not None:
            self.keep(loaded)
        return loaded

    def follow(
        self, game: Mapping[str, Any], seats: Sequence[Mapping[str, Any]], appended: Appended
    ) -> Snapshot | None:
        """The kept snapshot of the game brought forward by another process's write, and kept:
        ``game`` and ``seats`` are the public columns it left (the secrets are the kept
        snapshot's: no move changes one), ``appended`` what it logged. None if the game is
        not kept at the version written on, or not in play (see :func:`follow`); an error
        if the write cannot follow it (a malformed message)."""
        with self._lock:
            kept = self._kept.get(game["id"])
        if kept is None or not can_follow(kept, appended):
            with self._lock:
                self.counts.unfollowed += 1
            return None
        try:
            snapshot = follow(kept, with_secrets(kept.record, game, seats), appended)
        except Exception:
            with self._lock:
                self.counts.unfollowed += 1
            raise
        self.keep(snapshot)
        with self._lock:
            self.counts.followed += 1
        return snapshot

    def clear(self) -> None:
        """Forget every kept snapshot (as a restart does; bench/catch_up.py's full reloads)."""
        with self._lock:
            self._kept.clear()
            shared, self._shared = bool(self._shared), set()
        if shared:
            self._shared_changed()

    def shared_ids(self) -> list[str]:
        """The kept games that another process moved on since this one kept them (one load
        caught up from the log): games written by several workers, whose moves this one
        follows from the bus rather than catch up on. A game whose moves all come to one
        worker (a proxy routing each game to one) is not shared: it hears nothing."""
        with self._lock:
            return list(self._shared)

    def _share(self, game_id: str) -> None:
        with self._lock:
            new = game_id in self._kept and game_id not in self._shared
            if new:
                self._shared.add(game_id)
        if new:
            self._shared_changed()

    def _shared_changed(self) -> None:
        for listener in self.shared_listeners:
            listener()

    def peek(self, game_id: str) -> Snapshot | None:
        """The kept snapshot of the game, unchecked (it may be out of date), or None."""
        with self._lock:
            return self._kept.get(game_id)

    def keep(self, snapshot: Snapshot) -> None:
        """Keep ``snapshot`` (once committed) unless a newer one of the game is kept already."""
        game_id = snapshot.record.id
        unshared = False
        with self._lock:
            kept = self._kept.get(game_id)
            if kept is None or kept.version < snapshot.version:
                self._kept[game_id] = snapshot
                self._kept.move_to_end(game_id)
                while len(self._kept) > self.size:
                    dropped, _ = self._kept.popitem(last=False)
                    if dropped in self._shared:
                        self._shared.discard(dropped)
                        unshared = True
        if unshared:
            self._shared_changed()
