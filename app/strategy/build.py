"""Build the table of expected future points of every turn-start state, layer by layer."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from app.strategy.tables import (
    FULL_MASK,
    MASK_COUNT,
    PENTA_BIT,
    STATE_COUNT,
    UPPER_LEVELS,
    FloatArray,
    IntArray,
    joker_tables,
    reachable_uppers,
)
from app.strategy.turn import Workspace, turn_start_values

CHUNK = 512


def _layer_states(used: int) -> tuple[IntArray, IntArray, IntArray]:
    masks, uppers, flags = [], [], []
    for mask in range(MASK_COUNT):
        if mask.bit_count() != used:
            continue
        reachable = reachable_uppers(mask)
        for flag in (0, 1) if mask & PENTA_BIT else (0,):
            masks.append(np.full(reachable.size, mask, dtype=np.int64))
            uppers.append(reachable)
            flags.append(np.full(reachable.size, flag, dtype=np.int64))
    return np.concatenate(masks), np.concatenate(uppers), np.concatenate(flags)


def build_values(workers: int = 1) -> FloatArray:
    """The expected future points of every turn-start state, NaN where play cannot reach.

    ``workers`` threads share each layer (numpy releases the GIL in its loops); one is the
    default because the web server shares the machine while the table builds.
    """
    values = np.full(STATE_COUNT, np.nan)
    full = (FULL_MASK * UPPER_LEVELS + np.arange(UPPER_LEVELS)) * 2
    values[full] = 0.0
    values[full + 1] = 0.0
    joker_points, joker_bonus = joker_tables()
    workspaces = [Workspace(CHUNK) for _ in range(workers)]

    def run(worker: int, mask: IntArray, upper: IntArray, flag: IntArray) -> None:
        for start in range(worker * CHUNK, mask.size, workers * CHUNK):
            part = slice(start, start + CHUNK)
            m, u, f = mask[part], upper[part], flag[part]
            values[(m * UPPER_LEVELS + u) * 2 + f] = turn_start_values(
                values, m, u, f, joker_points[m], joker_bonus[m], workspaces[worker]
            )

    with ThreadPoolExecutor(workers) as pool:
        for used in range(FULL_MASK.bit_count() - 1, -1, -1):
            layer = _layer_states(used)
            for future in [pool.submit(run, worker, *layer) for worker in range(workers)]:
                future.result()
    return values
