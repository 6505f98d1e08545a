"""The computer player: optimal solitaire play of Penta, and a fallback while it gets ready.

The optimal strategy rests on a table of the expected future points of every turn-start state
(used boxes, upper subtotal capped at 63, whether the Penta box holds 50), built by dynamic
programming over the turn in a few seconds and cached on disk. From an empty sheet the expected
final total is 254.4848. The web layer holds a :class:`StrategyProvider` and asks
``provider.current()`` for decisions; until the table is ready that is :class:`GreedyStrategy`.

Like :mod:`app.rules`, this package imports no web, database, template, clock or randomness
code: dice for simulations come from a source the caller passes in.
"""

from app.strategy.build import build_values
from app.strategy.cache import (
    fingerprint,
    load_values,
    resolve_table_path,
    save_values,
    table_file_name,
)
from app.strategy.provider import StrategyProvider
from app.strategy.simulation import History, RollDice, play_game, simulate
from app.strategy.strategy import (
    TIE_TOLERANCE,
    GreedyStrategy,
    HoldOption,
    OptimalStrategy,
    Strategy,
    TablePlayer,
)

__all__ = [
    "TIE_TOLERANCE",
    "GreedyStrategy",
    "History",
    "HoldOption",
    "OptimalStrategy",
    "RollDice",
    "Strategy",
    "StrategyProvider",
    "TablePlayer",
    "build_values",
    "fingerprint",
    "load_values",
    "play_game",
    "resolve_table_path",
    "save_values",
    "simulate",
    "table_file_name",
]
