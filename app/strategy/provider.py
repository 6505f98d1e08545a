"""Hand out the best strategy available without ever making a caller wait for the table."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from app.strategy.build import build_values
from app.strategy.cache import load_values, resolve_table_path, save_values
from app.strategy.strategy import GreedyStrategy, OptimalStrategy, Strategy
from app.strategy.tables import FloatArray

logger = logging.getLogger(__name__)


class StrategyProvider:
    """The optimal strategy once its table is ready, the greedy fallback until then.

    ``location`` is a ``.npz`` file or a folder for the versioned file of
    :func:`app.strategy.cache.resolve_table_path`. :meth:`start` loads the table from there or
    builds it in a daemon thread and saves it atomically; :meth:`current` never blocks and is
    safe from any thread. If the build fails the fallback stays in place and :attr:`error`
    says why; if only the save fails, the built table is used anyway.

    >>> provider = StrategyProvider(Path("data/strategy"))  # doctest: +SKIP
    >>> provider.start()  # doctest: +SKIP
    >>> provider.current().best_box(sheet, dice)  # doctest: +SKIP
    """

    def __init__(
        self,
        location: Path,
        *,
        build: Callable[[], FloatArray] = build_values,
        fallback: Strategy | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.path = resolve_table_path(location)
        self._build = build
        self._fallback: Strategy = fallback or GreedyStrategy()
        # The caller's clock times the load or build for the log: this package reads none.
        self._clock = clock
        self._strategy: Strategy | None = None
        self._ready = threading.Event()
        self._settled = threading.Event()
        self._lock = threading.Lock()
        self._started = False
        self.loaded_from_disk = False
        """Whether the table came from the cache file rather than a build."""
        self.error: BaseException | None = None
        """Why the build failed, if it did."""

    def start(self) -> None:
        """Load the table (milliseconds, in this thread), or start building it in a daemon thread.

        Later calls do nothing.
        """
        with self._lock:
            if self._started:
                return
            self._started = True
        started = self._now()
        values = load_values(self.path)
        if values is not None:
            self.loaded_from_disk = True
            self._publish(values)
            logger.info(
                "strategy table loaded from %s%s", self.path, self._took(started, "in %.2f s")
            )
            return
        logger.info(
            "strategy table not found at %s: building it in the background; until it is "
            "ready the computer plays a simple fallback and hints say it is still preparing",
            self.path,
        )
        threading.Thread(target=self._build_and_save, name="strategy-build", daemon=True).start()

    @property
    def is_ready(self) -> bool:
        """Whether :meth:`current` returns the optimal strategy."""
        return self._ready.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the table is ready, the build fails, or ``timeout`` seconds pass.

        Returns whether the optimal strategy is ready.
        """
        self._settled.wait(timeout)
        return self.is_ready

    def current(self) -> Strategy:
        """The optimal strategy when ready, else the fallback (check ``is_optimal``)."""
        return self._strategy or self._fallback

    def _publish(self, values: FloatArray) -> None:
        self._strategy = OptimalStrategy(values)
        self._ready.set()
        self._settled.set()

    def _now(self) -> float | None:
        return self._clock() if self._clock else None

    def _took(self, started: float | None, pattern: str) -> str:
        """`` <pattern % seconds>`` since ``started``, or nothing without a clock."""
        now = self._now()
        return "" if started is None or now is None else " " + pattern % (now - started)

    def _build_and_save(self) -> None:
        started = self._now()
        try:
            values = self._build()
        except Exception as error:
            logger.exception("building the strategy table failed; the fallback stays")
            self.error = error
            self._settled.set()
            return
        values.flags.writeable = False
        took = self._took(started, "in %.1f s")
        try:
            save_values(self.path, values)
        except OSError:
            logger.exception("could not save the strategy table to %s", self.path)
            logger.info("strategy table built%s; not saved, so built again at next start", took)
        else:
            logger.info("strategy table built%s; saved to %s", took, self.path)
        self._publish(values)
