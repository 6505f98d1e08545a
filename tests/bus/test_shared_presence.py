"""Presence told by other workers, on its own: what they hold counts until it expires, away
time is judged across workers, what is kept is bounded, and the bus's messages read back."""

from __future__ import annotations

import pytest

from app.live.broker import Broker
from app.live.bus import messages
from app.live.presence import Presence
from app.live.presence_remote import RemotePresence
from app.service.reactions import Reaction
from tests.bus.test_redis_bus import Versions, bus, until
from tests.hardening.conftest import run_async
from tests.redis_server import RedisServer


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def make(absent: float = 10, expire: float = 6) -> tuple[Presence, Clock, list[str]]:
    clock = Clock()
    presence = Presence(absent, clock=clock, remote_expire_seconds=expire)
    changed: list[str] = []
    presence.listeners.append(changed.append)
    return presence, clock, changed


def test_the_other_workers_are_unknown_while_the_bus_is_down_and_one_expiry_after() -> None:
    presence, clock, _ = make(expire=6)
    assert presence.others_known(), "alone (no bus), this worker's streams are all there is"
    presence.share()
    assert not presence.others_known(), "before the bus is first up"
    presence.bus_changed(True)
    clock.now += 5.9
    assert not presence.others_known(), "not every worker has repeated what it holds yet"
    clock.now += 0.2
    assert presence.others_known()
    presence.bus_changed(False)
    assert not presence.others_known()
    clock.now += 600
    assert not presence.others_known(), "however long it is down"


def test_a_seat_another_worker_holds_is_present_until_its_word_expires() -> None:
    presence, clock, changed = make()
    presence.heard("a" * 16, "g", 0, 1)
    assert presence.absent_for("g", 0) is None
    assert presence.table("g", 2).present == (True, False)
    assert changed == ["g"]
    clock.now += 5
    presence.heard("a" * 16, "g", 0, 1)  # a heartbeat repeating what was known: no news
    assert changed == ["g"]
    clock.now += 5.9
    assert presence.absent_for("g", 0) is None
    clock.now += 0.2  # 6.1 s since the last heartbeat: that worker is gone, or Redis is
    assert presence.absent_for("g", 0) == pytest.approx(6.1)
    presence.expire()
    assert changed == ["g", "g"]
    assert len(presence.remote) == 0
    assert presence.absent_for("g", 0) == pytest.approx(6.1)  # away since last heard of


def test_away_time_counts_from_the_last_worker_to_have_the_seat() -> None:
    presence, clock, _ = make(absent=10)
    presence.enter("g", 1)
    presence.heard("b" * 16, "g", 1, 2)
    presence.leave("g", 1)  # gone here, still open on the other worker
    clock.now += 30
    presence.heard("b" * 16, "g", 1, 2)
    assert presence.absent_for("g", 1) is None
    presence.heard("b" * 16, "g", 1, 0)  # its last stream there closed now
    clock.now += 4
    assert presence.absent_for("g", 1) == pytest.approx(4)
    assert not presence.table("g", 2).away_long[1]
    assert presence.next_change_in("g", 2) == pytest.approx(6)
    clock.now += 6
    assert presence.table("g", 2).away_long[1]
    clock.now += 1
    presence.heard("c" * 16, "g", 1, 0)  # the word that it opened there was lost: held till now
    assert presence.absent_for("g", 1) == 0


def test_spectators_are_counted_on_every_worker_while_fresh() -> None:
    presence, clock, _ = make(expire=6)
    presence.enter("g", None)
    presence.heard("a" * 16, "g", None, 3)
    presence.heard("b" * 16, "g", None, 2)
    assert presence.table("g", 2).spectators == 6
    clock.now += 7
    assert presence.table("g", 2).spectators == 1
    presence.expire()
    assert len(presence.remote) == 0
    assert presence.local_streams() == [("g", None, 1)]


def test_what_the_others_said_is_bounded_and_the_forgotten_count_as_left() -> None:
    remote = RemotePresence(expire_seconds=6, max_heard=3)
    for seat in range(5):
        news, forgotten = remote.heard("a" * 16, "g", seat, 1, now=float(seat))
        assert news
        assert forgotten == ([] if seat < 3 else [("g", seat - 3, float(seat - 3))])
    assert len(remote) == 3
    assert remote.last_heard("g", 0) is None
    assert remote.last_heard("g", 4) == 4.0
    assert remote.expire(now=9.5) == [("g", 2, 2.0), ("g", 3, 3.0)]
    assert len(remote) == 1


def test_a_bounded_out_seat_is_timed_as_left_when_last_heard() -> None:
    presence, clock, _ = make(absent=10)
    presence.remote.max_heard = 1
    presence.heard("a" * 16, "g", 0, 1)
    clock.now += 3
    presence.heard("a" * 16, "h", 0, 1)  # pushes g's seat 0 out
    assert presence.absent_for("g", 0) == pytest.approx(3)


def test_the_bus_messages_read_back() -> None:
    origin = "0123456789abcdef"
    assert messages.version_message(origin, "g1", 7) == f"{origin} g1 7"
    assert messages.parse(f"{origin} g1 7") == messages.VersionMessage(origin, "g1", 7)
    entries = [("g1", None, 2), ("g-_2", 3, 1), ("g1", 0, 0)]
    (text,) = messages.presence_messages(origin, entries)
    assert text == f"presence {origin} g1/-/2 g-_2/3/1 g1/0/0"
    assert messages.parse(text) == messages.PresenceMessage(origin, tuple(entries))
    many = [(f"g{n}", 0, 1) for n in range(messages.MAX_ENTRIES * 2 + 1)]
    heartbeat = messages.presence_messages(origin, many)
    assert [len(text.split(" ")) - 2 for text in heartbeat] == [messages.MAX_ENTRIES] * 2 + [1]
    read = [messages.parse(text) for text in heartbeat]
    assert [e for m in read if isinstance(m, messages.PresenceMessage) for e in m.entries] == many
    reaction = Reaction(12, 1, "Zoé <b> & co", "gg")
    text = messages.signal_message(origin, "g1", reaction)
    assert messages.parse(text) == messages.SignalMessage(origin, "g1", reaction)


@pytest.mark.parametrize(
    "text",
    [
        "presence abc g1/x/1",
        "presence abc g1/0/-1",
        "presence abc g1/0",
        "presence abc /0/1",
        "presence abc",
        "presence abc " + " ".join(["g/0/1"] * 501),
        'signal abc g1 {"n": 1, "seat": 0, "name": "A", "kind": "rm -rf"}',
        'signal abc g1 {"n": 1, "seat": -1, "name": "A", "kind": "gg"}',
        "signal abc g1 [1, 2]",
        "signal abc g1 {not json",
        "abc g1 seven -",
    ],
)
def test_a_malformed_message_is_refused(text: str) -> None:
    with pytest.raises(messages.MalformedMessageError):
        messages.parse(text)


def test_heartbeats_tell_a_late_worker_and_redis_away_lets_the_word_expire(
    redis_server: RedisServer,
) -> None:
    """A worker that subscribes after a seat opened learns it from the next heartbeat; with
    Redis gone, nothing repeats it and it expires: the other worker judges it away."""

    async def scenario() -> None:
        here, there = Presence(60), Presence(60, remote_expire_seconds=0.6)
        sender = bus(redis_server, Broker(), Versions(), check_seconds=600, heartbeat_seconds=0.2)
        receiver = bus(redis_server, Broker(), Versions(), check_seconds=600)
        sender.share_presence(here)
        receiver.share_presence(there)
        here.enter("g", 0)  # before anyone listens: only a heartbeat can tell of it
        await sender.start()
        await receiver.start()
        await until(lambda: there.absent_for("g", 0) is None, "no heartbeat was heard")
        redis_server.stop()
        await until(lambda: there.absent_for("g", 0) is not None, "the word never expired")
        await until(lambda: len(there.remote) == 0, "the receiver's sweep did not forget it")
        assert here.absent_for("g", 0) is None  # the sender still has its own stream
        await sender.stop()
        await receiver.stop()

    run_async(scenario())


def test_a_reaction_signalled_on_one_worker_reaches_the_others_streams(
    redis_server: RedisServer,
) -> None:
    async def scenario() -> None:
        here, there = Broker(), Broker()
        sender = bus(redis_server, here, Versions(), check_seconds=600)
        receiver = bus(redis_server, there, Versions(), check_seconds=600)
        await sender.start()
        await receiver.start()
        await until(lambda: sender.status == receiver.status == "up", "the bus never came up")
        local, remote = here.subscribe("g"), there.subscribe("g")
        reaction = Reaction(5, 1, "Bob", "clap")
        sender.signal("g", reaction)
        sender.signal("g", "table")  # presence signals stay local: presence messages carry it
        await until(lambda: list(remote.signals) == [reaction], "the reaction never came")
        await until(lambda: list(local.signals) == [reaction, "table"], "not signalled here")
        await sender.stop()
        await receiver.stop()

    run_async(scenario())
