"""The columns of asv's results, read and checked for `asv`: the file's `result_columns`, a
benchmark's params and their combinations, a column's value for each combination, a timed
result's statistics (`stats_*`), and those statistics checked against the samples asv
recorded. What the adapter makes of them is `asv`'s.
"""

import itertools
import math
from typing import Any

import numpy as np

from latlab_contract.fields import MAX_COUNT
from latlab_contract.parsers.base import ParseError
from latlab_contract.parsers.harness import checked, member

# asv writes its statistics with 5 significant digits (`truncate_float_list`): what they may
# differ by from the same statistic of the samples, or from the median (written whole).
TRUNCATED = 5e-5
# The median asv writes whole, computed in doubles as the lab computes it.
_AGREEMENT = 1e-9
_STATS = ("ci_99_a", "ci_99_b", "q_25", "q_75", "number", "repeat")


def result_columns(document: dict[str, Any]) -> list[str]:
    """The names of a row's values, in order (`result_columns`)."""
    columns: list[str] = member(document, "result_columns", "$", list)
    for index, column in enumerate(columns):
        checked(column, f"$.result_columns[{index}]", str)
    for needed in ("result", "params"):
        if needed not in columns:
            raise ParseError(f"$.result_columns: no '{needed}' column")
    return columns


def combinations(params: Any, where: str) -> list[tuple[str, ...]]:
    """The combinations of a benchmark's params, in asv's order (their product)."""
    checked(params, where, list)
    for index, values in enumerate(params):
        if not checked(values, f"{where}[{index}]", list):
            raise ParseError(f"{where}[{index}]: a parameter without values")
        for position, value in enumerate(values):
            checked(value, f"{where}[{index}][{position}]", str)
    return list(itertools.product(*params))


def per_combination(fields: dict[str, Any], column: str, count: int, path: str) -> list[Any]:
    """A column's list of one value per combination."""
    values: list[Any] = checked(fields[column], f"{path}.{column}", list)
    if len(values) != count:
        raise ParseError(f"{path}.{column}: {len(values)} values for {count} parameter "
                         "combinations (the product of its params)")
    return values


def timed_stats(fields: dict[str, Any], index: int, count: int, path: str
                ) -> dict[str, float]:
    """A timed result's statistics (s, and counts), without the bounds of an interval asv
    could not compute (one sample: +-Infinity)."""
    stats: dict[str, float] = {}
    for key in _STATS:
        column = f"stats_{key}"
        where = f"{path}.{column}[{index}]"
        value = None if fields.get(column) is None else per_combination(fields, column, count,
                                                                        path)[index]
        if value is None:
            raise ParseError(f"{where}: missing: asv writes the statistics of every timed "
                             "result")
        if key.startswith("ci_") and isinstance(value, float) and math.isinf(value):
            continue
        stats[key] = checked(value, where, float)
    for key in ("number", "repeat"):
        if stats[key] != int(stats[key]) or not 1 <= stats[key] <= MAX_COUNT:
            raise ParseError(f"{path}.stats_{key}[{index}]: {stats[key]:g} is not a count "
                             f"within 1 .. {MAX_COUNT:,}")
    return stats


def agree(times: list[float], result: float, stats: dict[str, float], path: str,
          index: int) -> None:
    """Refuses statistics that are not asv's of its samples (s): their count, median and
    quartiles (linear interpolation, as asv_runner's `quantile`)."""
    if len(times) != stats["repeat"]:
        raise ParseError(f"{path}.stats_repeat[{index}]: {stats['repeat']:g} contradicts the "
                         f"samples: {len(times)} of them")
    rules = (("result", result, 0.5, _AGREEMENT), ("stats_q_25", stats["q_25"], 0.25,
             TRUNCATED), ("stats_q_75", stats["q_75"], 0.75, TRUNCATED))
    for column, value, q, tolerance in rules:
        computed = float(np.quantile(times, q))  # linear, as asv_runner's `quantile`
        if abs(value - computed) > tolerance * abs(computed) + 1e-15:
            raise ParseError(f"{path}.{column}[{index}]: {value:g} s contradicts the samples: "
                             f"their {q:g} quantile is {computed:g} s")
