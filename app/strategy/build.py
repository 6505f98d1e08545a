"""Build the table of expected future points of every turn-start state, layer by layer."""

from __future__ import annotations

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
    state_index,
)
from app.strategy.turn import Workspace, turn_start_values

CHUNK = 512


def _layer_states(used: int) -> tuple[IntArray, IntArray, IntArray]:
    """Every reachable state with ``used`` boxes used: masks, upper subtotals, Penta flags."""
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


def build_values() -> FloatArray:
    """The expected future points of every turn-start state, NaN where no game can reach.

    Layers of states with the same number of used boxes are computed from the fullest sheet
    back to the empty one, each layer in batches of :data:`CHUNK` states.
    """
    values = np.full(STATE_COUNT, np.nan)
    full = state_index(np.full(UPPER_LEVELS, FULL_MASK), np.arange(UPPER_LEVELS), 0)
    values[full] = 0.0
    values[full + 1] = 0.0
    joker_points, joker_bonus = joker_tables()
    workspace = Workspace(CHUNK)
    for used in range(FULL_MASK.bit_count() - 1, -1, -1):
        mask, upper, flag = _layer_states(used)
        for start in range(0, mask.size, CHUNK):
            part = slice(start, start + CHUNK)
            m, u, f = mask[part], upper[part], flag[part]
            values[state_index(m, u, f)] = turn_start_values(
                values, m, u, f, joker_points[m], joker_bonus[m], workspace
            )
    return values
