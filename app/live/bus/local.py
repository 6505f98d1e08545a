"""The bus of a single process: every change is told to this process's streams only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from app.live.broker import Broker

if TYPE_CHECKING:
    from app.live.presence import Presence
    from app.service.views import GameView


class Bus(Protocol):
    """What the application needs of a bus: a listener for the service's committed changes,
    a lifetime, and its state for ``/healthz``."""

    broker: Broker

    def publish(self, game_id: str, version: int, view: GameView | None) -> None: ...

    def signal(self, game_id: str, signal: object) -> None:
        """Hand ``signal`` (a reaction) to every worker's streams of the game."""

    def share_presence(self, presence: Presence) -> None:
        """Join ``presence`` to the other workers' (who has which game open)."""

    async def takeover_turn(self, seconds: float) -> bool:
        """Whether this worker looks for the deadlines others left overdue now, for
        ``seconds`` the one worker that does."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    @property
    def status(self) -> str: ...

    def figures(self) -> dict[str, int]: ...


class LocalBus:
    """``PENTA_BUS_URL`` empty: the in-process broker is the whole bus."""

    def __init__(self, broker: Broker) -> None:
        self.broker = broker

    def publish(self, game_id: str, version: int, view: GameView | None) -> None:
        self.broker.publish(game_id, version, view)

    def signal(self, game_id: str, signal: object) -> None:
        self.broker.signal(game_id, signal)

    def share_presence(self, presence: Presence) -> None:
        return None  # this process's streams are all there is

    async def takeover_turn(self, seconds: float) -> bool:
        return True  # the only worker

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    @property
    def status(self) -> str:
        return "local"

    def figures(self) -> dict[str, int]:
        return {}
