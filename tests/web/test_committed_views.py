"""The broker hands each stream the view its change committed: nothing is read back, except a
version heard of without its view (from another worker, or a sweep), read by version."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anyio import to_thread

from app.live.broker import Broker
from app.service.games import GameService
from app.service.views import GameView
from app.settings import Settings
from app.store.migrate import upgrade
from app.web.factory import create_app
from app.web.live import LiveViews
from tests.hardening.conftest import run_async


def counting_reads(service: GameService) -> list[str]:
    """The games ``service.get`` is asked for from now on (it still reads them)."""
    reads: list[str] = []
    read = service.get

    def get(game_id: str) -> GameView:
        reads.append(game_id)
        return read(game_id)

    service.get = get  # type: ignore[method-assign]
    return reads


def test_a_committed_change_reaches_the_stream_with_its_view_and_is_not_read_back(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings()
    app: Any = create_app(settings)
    upgrade(settings.resolved_database_url)
    service: GameService = app.state.service
    broker: Broker = app.state.broker
    live: LiveViews = app.state.live_views

    async def scenario() -> None:
        created, secret = await to_thread.run_sync(service.create, "Ann")
        subscription = broker.subscribe(created.id)
        reads = counting_reads(service)
        started = await to_thread.run_sync(lambda: service.start(created.id, secret))
        assert await subscription.wait(created.version, 5) == started.version
        assert subscription.view is not None
        assert subscription.view.version == started.version
        view = await live.view(created.id, subscription.latest, subscription.view)
        assert view is subscription.view
        assert reads == []

        # A version without its view (as the bus brings from another worker) is read back.
        other = broker.subscribe(created.id)
        broker.publish(created.id, started.version, None)
        live.forget(created.id)
        assert await other.wait(0, 5) == started.version
        assert other.view is None
        read_back = await live.view(created.id, other.latest, other.view)
        assert (read_back.version, read_back.status) == (started.version, started.status)
        assert reads == [created.id]
        subscription.close()
        other.close()

    run_async(scenario())
    app.state.service.database.dispose()
