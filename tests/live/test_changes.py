"""What a ``change`` event carries of a fragment with live parts (app/web/live.py)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from app.web.live import LiveViews, Rendering, RenderingKey, _Split, sse

ROW = '<tr id="{id}" data-live-part class="r"><td>{value}</td></tr>'


def change(old: str, new: str) -> str | None:
    """The change from a rendering of ``old`` (version 1) to one of ``new`` (version 2)."""
    live = LiveViews(service=None)  # type: ignore[arg-type]  # no view is read here
    for version, fragment in ((1, old), (2, new)):
        key = RenderingKey("game", version, "page")
        live.rendering(key, lambda fragment=fragment: (fragment,))  # type: ignore[misc]
    key = RenderingKey("game", 2, "page")
    return live.change(key, live.rendering(key, lambda: ()))


def table(*rows: tuple[str, int]) -> str:
    return "<table>" + "".join(ROW.format(id=id, value=value) for id, value in rows) + "</table>"


def test_a_change_carries_the_rows_that_differ_each_in_a_template() -> None:
    sent = change(table(("a", 1), ("b", 2)), table(("a", 1), ("b", 3)))
    assert sent is not None
    assert 'data: <template><tr id="b" data-live-part hx-swap-oob="true" class="r">' in sent
    assert 'id="a"' not in sent


def test_a_fragment_with_two_parts_of_one_id_goes_whole() -> None:
    # Taken by id, the second "a" would hide the first one's change.
    sent = change(table(("a", 1), ("a", 2)), table(("a", 9), ("a", 2)))
    assert sent is not None
    assert "data: <table>" in sent
    assert "<td>9</td>" in sent


def test_a_change_of_the_frame_sends_the_fragment_whole() -> None:
    sent = change(table(("a", 1)), "<table class=x>" + table(("a", 1))[7:])
    assert sent is not None
    assert "data: <table class=x>" in sent


def test_splits_forgotten_are_made_again() -> None:
    rendering = Rendering((table(("a", 1)),), 1)
    first = rendering.split(0)
    rendering.forget_splits()
    assert rendering.split(0) is not first
    assert rendering.split(0).parts == first.parts


def test_a_renderings_whole_event_is_its_parts_in_one_event_made_once() -> None:
    parts = (table(("a", 1)), "<p>\u00e9t\u00e9</p>")
    rendering = Rendering(parts, 7, "table")
    event = rendering.event
    assert event == sse("table", 7, "".join(parts))
    assert event.startswith("event: table\nid: 7\ndata: <table>")
    assert rendering.event is event


def test_a_one_fragment_event_is_kept_alone_and_one_per_key_whatever_it_shows() -> None:
    live = LiveViews(service=None)  # type: ignore[arg-type]  # no view is read here
    key = RenderingKey("game", 3, "table:en")
    first = live.event(key, lambda: "<p>\nAnn</p>", "table", shows=("Ann here",))
    assert first == sse("table", 3, "<p> Ann</p>")
    # Asked again for what it shows: the same event, not made again.
    assert live.event(key, lambda: "<p>other</p>", "table", shows=("Ann here",)) is first
    # Showing something else (the table changed): made again, in the key's place.
    second = live.event(key, lambda: "<p>Ann away</p>", "table", shows=("Ann away",))
    assert second == sse("table", 3, "<p>Ann away</p>")
    assert live.made["table"] == 2
    kept = live.rendering(key, lambda: ())
    assert kept.event is second
    assert kept.parts == ()  # the event alone, not its fragment beside it
    # One taking a key's place is the newest in the cache, the last to be let go.
    other = RenderingKey("game", 3, "reaction:en:1")
    live.event(other, lambda: "<p>wave</p>", "reaction")
    live.event(key, lambda: "<p>Ann back</p>", "table", shows=("Ann back",))
    assert list(live._renderings)[-2:] == [other, key]


# The parts as one regular expression over the whole fragment says them (what the split did
# before it looked for them with ``str.find``, an id holding no ``<``, as escaped ones do not):
# the reference the split is held to.
REFERENCE = re.compile(
    r'<(li|div|tr) id="([^"<]+)" data-live-part[ >][^<]*(?:<(?!/\1>)[^<]*)*</\1>'
)

# Pieces of fragments: parts of each kind, heads left open, look-alikes that are not parts,
# other elements and text.
PIECES = st.sampled_from(
    [
        '<li id="die-0" data-live-part>',
        '<li id="die-1" data-live-part class="x">',
        '<tr id="sheet-ones" data-live-part data-box="ones">',
        '<div id="sheet-turn" data-live-part>',
        '<div id="a" data-live-part-not>',
        '<td id="b" data-live-part>',
        '<li class="c" id="d" data-live-part>',
        '<li id="a<b" data-live-part>',
        "</li>",
        "</tr>",
        "</div>",
        "<td>1</td>",
        "<span>\u2605</span>",
        " data-live-part ",
        '<p data-version="12">',
        "text <",
        "<",
        ">",
    ]
)


@given(st.lists(PIECES, max_size=30))
def test_a_fragment_splits_into_the_parts_the_reference_says(pieces: list[str]) -> None:
    fragment = "".join(pieces)
    split = _Split(fragment)
    found = list(REFERENCE.finditer(fragment))
    ids = [match.group(2) for match in found]
    if len(set(ids)) < len(ids):  # two parts of one id: the fragment goes whole
        assert split.parts == {}
        return
    assert split.parts == {match.group(2): match.group(0) for match in found}
    skeleton, end = [], 0
    for match in found:
        skeleton += (fragment[end : match.start()], match.group(2))
        end = match.end()
    skeleton.append(fragment[end:])
    assert split.skeleton == re.sub(r' data-version="\d+"', "", "".join(skeleton))
