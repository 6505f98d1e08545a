"""The newest view of each live game and its renderings, kept once for every open stream;
and the server-sent event format that the streams write.

A version is rendered once per kind (the page and its language, the API, ...) and shared by
every reader: the page's rendering is a sequence of fragments, so that a reader who saw the
version before gets only the fragments that changed (a ``change`` event), and any other
reader the whole board (an ``update``). Rendering is pure CPU of about a millisecond: it runs
on the event loop, where the first reader to wake makes it and the others find it kept.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass

from anyio import to_thread

from app.service.games import GameService
from app.service.views import GameView
from app.web.schemas import GameOut

_CACHE_SIZE = 2048
"""Renderings kept, the least recently made dropped first; a game's readers need its newest
two of each kind (the change is against the one before), and a reader behind by a few
versions those too: this holds that for several hundred games watched at once."""


# Within a fragment, the elements marked ``data-live-part`` (the dice, the sheet's rows) are
# parts of their own: where nothing else in the fragment changed but its version, a change
# sends only the parts that differ. They hold no element of their own kind (a die's <li> holds
# no <li>), and ``data-live-part`` follows their id (escaped: no ``<`` in it): a part ends at
# the first closing tag of its kind after its head. (Found with ``str.find``, the marker first
# and then that closing tag: one regular expression over the whole fragment, stepping from tag
# to tag, took half the time the scoresheet takes to render.)
_PART_MARK = " data-live-part"
_PART_HEAD = re.compile(r'<(li|div|tr) id="([^"<]+)" data-live-part[ >]')
_VERSION = re.compile(r' data-version="\d+"')


def _live_parts(fragment: str) -> Iterator[tuple[int, int, str]]:
    """Where each part of ``fragment`` starts and ends, and its id, in order."""
    at = 0
    while (mark := fragment.find(_PART_MARK, at)) >= 0:
        at = mark + len(_PART_MARK)
        start = fragment.rfind("<", 0, mark)
        head = _PART_HEAD.fullmatch(fragment, start, at + 1) if start >= 0 else None
        if head is None:
            continue
        closing = f"</{head.group(1)}>"
        end = fragment.find(closing, at)
        if end >= 0:
            at = end + len(closing)
            yield start, at, head.group(2)


class _Split:
    """A fragment seen as its parts (by id) and the rest (its skeleton: the parts emptied,
    the version left out), made once per rendering and fragment."""

    __slots__ = ("parts", "skeleton")

    def __init__(self, fragment: str) -> None:
        self.parts: dict[str, str] = {}
        pieces: list[str] = []
        end = 0
        for start, stop, key in _live_parts(fragment):
            if key in self.parts:  # two parts of one id: the fragment goes whole
                self.parts.clear()
                self.skeleton = _VERSION.sub("", fragment)
                return
            self.parts[key] = fragment[start:stop]
            pieces += (fragment[end:start], key)
            end = stop
        pieces.append(fragment[end:])
        self.skeleton = _VERSION.sub("", "".join(pieces))


def _out_of_band(part: str) -> str:
    """A part as a change sends it, swapped by its id; a table row in a <template>, which is
    where HTML parses a row standing alone (htmx swaps what a template holds)."""
    marked = part.replace(" data-live-part", ' data-live-part hx-swap-oob="true"', 1)
    return f"<template>{marked}</template>" if part.startswith("<tr") else marked


def _changed(rendering: Rendering, before: Rendering, index: int) -> str:
    """What a change sends of fragment ``index``, which differs from the version before's:
    the whole fragment, or only its parts that differ when nothing else did."""
    new, old = rendering.split(index), before.split(index)
    if new.skeleton != old.skeleton:
        return rendering.parts[index]
    return "".join(
        _out_of_band(part) for key, part in new.parts.items() if old.parts.get(key) != part
    )


@dataclass(frozen=True)
class RenderingKey:
    """What one rendering is of: a version of a game, for a kind of reader (the page in its
    language, the API...) and, where the rendering is one seat's own, that seat."""

    game_id: str
    version: int
    kind: str
    seat: int | None = None


class Rendering:
    """One version rendered for one kind: its fragments, and its whole event once a reader
    needs it (a reader that saw the version before takes the change: the whole is made for
    a reader that joins or fell behind, and for the bots' JSON)."""

    __slots__ = ("_event", "_splits", "change", "name", "parts", "shows", "version")

    def __init__(
        self,
        parts: tuple[str, ...],
        version: int,
        name: str = "update",
        shows: tuple[Hashable, ...] = (),
    ) -> None:
        self.parts = parts
        self.version = version
        self.name = name
        self.shows = shows
        """What of the game each part shows (None: not said, made again each version); for a
        rendering that is one event alone (:meth:`whole`), what that event shows beyond its
        key."""
        self.change: str | None = None
        """The event from the version before to this one, once a reader has needed it."""
        self._event: str | None = None
        self._splits: dict[int, _Split] = {}

    @classmethod
    def whole(
        cls, data: str, version: int, name: str, shows: tuple[Hashable, ...] = ()
    ) -> Rendering:
        """A rendering that is one event and nothing else (no fragments kept)."""
        rendering = cls((), version, name, shows)
        rendering._event = sse(name, version, data)
        return rendering

    @property
    def event(self) -> str:
        """The whole rendering as one event (made once, when first needed: kept beside its
        parts for every version, it was a second copy of a board each game held)."""
        if self._event is None:
            self._event = sse(self.name, self.version, "".join(self.parts))
        return self._event

    def split(self, index: int) -> _Split:
        """Fragment ``index`` as its parts and its skeleton (made once)."""
        split = self._splits.get(index)
        if split is None:
            split = self._splits[index] = _Split(self.parts[index])
        return split

    def forget_splits(self) -> None:
        self._splits.clear()


class LiveViews:
    """The newest view of each live game and its renderings, loaded once for all readers."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self._views: dict[str, GameView] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._renderings: OrderedDict[RenderingKey, Rendering] = OrderedDict()
        self.made: Counter[str] = Counter()
        """Renderings made since the start, by what they are of (the first part of their
        kind: ``game``, ``lobby``, ``table``, ``hints``, ``api``...): the tests count them."""

    async def view(
        self, game_id: str, at_least: int, published: GameView | None = None
    ) -> GameView:
        """The game at ``at_least`` or newer: ``published`` if it is (the view its change
        committed, handed over by the broker), else the newest kept, else read back."""
        if published is not None and published.version >= at_least:
            cached = self._views.get(game_id)
            if cached is None or cached.version < published.version:
                self._views[game_id] = published
            return published
        cached = self._views.get(game_id)
        if cached is not None and cached.version >= at_least:
            return cached
        lock = self._locks.setdefault(game_id, asyncio.Lock())
        async with lock:
            cached = self._views.get(game_id)
            if cached is None or cached.version < at_least:
                cached = await to_thread.run_sync(self.service.get, game_id)
                self._views[game_id] = cached
            return cached

    def rendering(
        self,
        key: RenderingKey,
        make: Callable[[], Sequence[str]],
        event: str = "update",
    ) -> Rendering:
        """The rendering of ``key``: ``make`` gives its fragments (once, for every reader),
        each made one line; the whole is one ``event`` (made when a reader first needs it)."""
        rendering = self._renderings.get(key)
        if rendering is None:
            parts = tuple(part.replace("\n", " ") for part in make())
            rendering = self._keep(key, Rendering(parts, key.version, event))
        return rendering

    def board(
        self,
        key: RenderingKey,
        showing: Callable[[], Sequence[Hashable]],
        make: Callable[[Sequence[int]], Sequence[str]],
    ) -> Rendering:
        """The rendering of ``key`` as an ``update`` of the parts ``showing`` says what each
        shows (asked only when the rendering is made): a part that shows (not None) what it
        showed in the version before keeps that rendering, and ``make`` is given the indexes
        of the others to render (once, for every reader)."""
        rendering = self._renderings.get(key)
        if rendering is not None:
            return rendering
        shows = showing()
        before = self._renderings.get(self._before(key))
        kept = before.shows if before is not None and len(before.shows) == len(shows) else None
        fresh = [
            index
            for index, shown in enumerate(shows)
            if kept is None or shown is None or kept[index] != shown
        ]
        made = dict(zip(fresh, make(fresh), strict=True))
        old = before.parts if before is not None and kept is not None else ()
        parts = tuple(
            made[index].replace("\n", " ") if index in made else old[index]
            for index in range(len(shows))
        )
        return self._keep(key, Rendering(parts, key.version, shows=tuple(shows)))

    def _keep(self, key: RenderingKey, rendering: Rendering) -> Rendering:
        self.made[key.kind.partition(":")[0]] += 1
        self._renderings.pop(key, None)  # one taking a key's place is the newest
        self._renderings[key] = rendering
        while len(self._renderings) > _CACHE_SIZE:
            self._renderings.popitem(last=False)
        return rendering

    @staticmethod
    def _before(key: RenderingKey) -> RenderingKey:
        return RenderingKey(key.game_id, key.version - 1, key.kind, key.seat)

    def api(self, view: GameView, site: str) -> Rendering:
        """The bot API's rendering of ``view``: its JSON (the one part) and its ``game``
        event, encoded once for the answer to the move that made it and every JSON stream."""
        key = RenderingKey(view.id, view.version, f"api:{site}")
        return self.rendering(key, lambda: (GameOut.of(view, site).model_dump_json(),), "game")

    def event(
        self,
        key: RenderingKey,
        make: Callable[[], str],
        event: str,
        shows: tuple[Hashable, ...] = (),
    ) -> str:
        """The one-fragment event of ``key`` that ``make`` renders, made once for all readers
        and kept as that event alone (its fragment beside it held a second copy: 1.5 KiB a
        game's table, bench/stream_memory.py). ``shows``: what the event shows beyond its key
        (the table's presence); one that shows something else takes the key's place, so a
        version keeps one such event, not one for every state it went through."""
        rendering = self._renderings.get(key)
        if rendering is None or rendering.shows != shows:
            rendering = self._keep(key, Rendering.whole(make(), key.version, event, shows))
        return rendering.event

    def change(self, key: RenderingKey, rendering: Rendering) -> str | None:
        """The ``change`` event from version ``key.version - 1`` to ``rendering``: only its
        fragments that differ; None when the version before is no longer kept."""
        if rendering.change is None:
            before = self._renderings.get(self._before(key))
            if before is None or len(before.parts) != len(rendering.parts):
                return None
            changed = "".join(
                _changed(rendering, before, index)
                for index, (part, old) in enumerate(zip(rendering.parts, before.parts, strict=True))
                if part != old
            )
            rendering.change = sse("change", key.version, changed)
            before.forget_splits()  # the next change is against this rendering
        return rendering.change

    def forget(self, game_id: str) -> None:
        """Drop what is kept of a game nobody watches any more."""
        self._views.pop(game_id, None)
        self._locks.pop(game_id, None)


def sse(event: str, version: int, data: str) -> str:
    """One server-sent event of ``data`` on one ``data:`` line (line breaks become spaces,
    which HTML reads alike)."""
    return f"event: {event}\nid: {version}\ndata: {data.replace(chr(10), ' ')}\n\n"
