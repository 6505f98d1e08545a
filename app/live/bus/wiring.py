"""Which bus the settings ask for, connected to the service's database and deadlines."""

from __future__ import annotations

from collections.abc import Sequence

from app.live.broker import Broker
from app.live.bus.local import Bus, LocalBus
from app.live.bus.messages import ChangeMessage
from app.live.bus.redis_bus import RedisBus
from app.service.games import GameService
from app.settings import Settings
from app.store.snapshots import Snapshot
from app.store.versions import current_versions


def make_bus(settings: Settings, broker: Broker, service: GameService) -> Bus:
    """The Redis bus when ``PENTA_BUS_URL`` is set, else the in-process broker alone."""
    if not settings.bus_url:
        return LocalBus(broker)

    def read_versions(game_ids: Sequence[str]) -> dict[str, int]:
        with service.database.read_connection() as connection:
            return current_versions(connection, game_ids)

    snapshots = service.changes.snapshots

    def follow(message: ChangeMessage) -> Snapshot | None:
        return snapshots.follow(message.game, message.seats, message.appended)

    bus = RedisBus(
        settings.bus_url,
        settings.bus_channel,
        broker,
        read_versions=read_versions,
        kept_of=snapshots.peek,
        follow=follow,
        view_of=service.changes.view,
        shared_of=snapshots.shared_ids,
        check_seconds=settings.bus_check_seconds,
    )
    snapshots.shared_listeners.append(bus.watched_changed)
    return bus
