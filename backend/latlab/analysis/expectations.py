"""An experiment's expectations: a bound on a metric of a named series, or on the ratio of the
same metric in two, judged from the series' trials as holds, does not hold or not decided,
with the smallest distance from the bound its trials could decide.

    p50(tuned) <= 0.5 * p50(before)                 tuned's P50 at most half of before's
    throughput(zig) >= throughput(go) for concurrency <= 100
    p99(candidate) <= 1.5 * p99(baseline)           a budget; its headroom: how far below
    p95(reqrep) <= 500 ms                           a bound (time units converted)

A ratio is judged on the 95 % interval of the change of the median between the two series'
trials (`stats.change_interval`, a bootstrap of both sides): it holds when the whole interval
lies on the bound's side, does not hold when the whole interval lies beyond it, and is not
decided when the interval straddles the bound. A bound is judged the same way on the interval
of the series' median (`stats.median_interval`). `for <param> <op> <number>` limits an
expectation to the points of an axis (the runs whose param satisfies it); the experiment
judges it at each. The interval's half-width, relative to the bound, is the smallest distance
from it the trials could decide: "not decided" says how close the value came.

A derived metric (`Derived`) is computed for each trial from a measured one and a param of
its series, `messages_per_s / devices` (per device) or `p50 * connections`: the lab marks it
derived wherever it shows it, and judges it as any other metric."""

import math
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from latlab.analysis.stats import change_interval, median_interval
from latlab_contract.vocabulary import TIME_UNITS

Op = Literal["<=", "<", ">=", ">"]
Outcome = Literal["holds", "does-not-hold", "not-decided"]

_NAME = r"[A-Za-z_][\w.-]*"
_NUMBER = r"[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?"
_TERM = rf"(?P<{{side}}metric>{_NAME})\((?P<{{side}}series>{_NAME})\)"
_DERIVED = re.compile(rf"^\s*(?P<metric>{_NAME})\s*(?P<op>[/*])\s*(?P<param>{_NAME})\s*$")
_PATTERN = re.compile(
    rf"^\s*{_TERM.format(side='l')}\s*(?P<op><=|>=|<|>)\s*"
    rf"(?:(?:(?P<factor>{_NUMBER})\s*\*\s*)?{_TERM.format(side='r')}"
    rf"|(?P<bound>{_NUMBER})\s*(?P<unit>[a-zµ]+)?)"
    rf"(?:\s+for\s+(?P<param>{_NAME})\s*(?P<where_op><=|>=|<|>|==)\s*(?P<where>{_NUMBER}))?"
    r"\s*$")


@dataclass(frozen=True)
class Term:
    metric: str
    series: str  # an experiment's name for a series of one of its jobs

    def __str__(self) -> str:
        return f"{self.metric}({self.series})"


@dataclass(frozen=True)
class Expectation:
    text: str
    left: Term
    op: Op
    right: Term | None  # None: a bound
    factor: float = 1.0  # the ratio's bound: left op factor * right
    bound: float | None = None  # left op bound, in `unit`
    unit: str | None = None
    where: tuple[str, str, float] | None = None  # (param, op, number)

    def applies(self, params: Mapping[str, Any]) -> bool:
        """Whether the expectation holds at a point whose params are `params` (a point
        without the param is outside a `for` clause)."""
        if self.where is None:
            return True
        name, op, number = self.where
        value = params.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        return _compare(float(value), op, number)


@dataclass(frozen=True)
class Judgement:
    outcome: Outcome
    value: float | None  # the ratio, or the series' median in `unit`
    interval: tuple[float, float] | None  # of `value`, 95 %
    decidable: float | None  # the smallest distance from the bound decided, relative to it
    reason: str


@dataclass(frozen=True)
class Derived:
    """A metric computed per trial: a measured `metric` divided (or multiplied) by the value
    of `param` at its series (an axis label, else the run's param)."""

    metric: str
    op: Literal["/", "*"]
    param: str

    def __str__(self) -> str:
        return f"{self.metric} {self.op} {self.param}"

    def values(self, measured: Sequence[float], params: Mapping[str, Any]) -> list[float]:
        """The derived value of each trial; a ValueError says why there is none."""
        given = params.get(self.param)
        try:
            number = float("nan") if isinstance(given, bool) else float(given)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            number = float("nan")
        if math.isnan(number) or (self.op == "/" and number == 0):
            raise ValueError(f"{self}: the series' {self.param} is {given!r}, not a number "
                             f"it can be {'divided' if self.op == '/' else 'multiplied'} by")
        return [v / number if self.op == "/" else v * number for v in measured]

    def unit(self, measured: str | None) -> str:
        return f"{measured or ''} {self.op} {self.param}".strip()


def parse_derived(text: str) -> Derived:
    """A derived metric from its expression; a ValueError says what is wrong."""
    found = _DERIVED.match(text)
    if found is None:
        raise ValueError(f"{text!r} is not a derived metric: write `metric / param` or "
                         f"`metric * param` (a param of the series: an axis or the job's)")
    return Derived(found["metric"], found["op"], found["param"])  # type: ignore[arg-type]


def parse(text: str) -> Expectation:
    """An expectation from its text; a ValueError says what is wrong."""
    found = _PATTERN.match(text)
    if found is None:
        raise ValueError(
            f"{text!r} is not an expectation: write `metric(series) <op> [factor *] "
            f"metric(series)` or `metric(series) <op> number [unit]`, optionally followed "
            f"by `for param <op> number` (<op>: <=, <, >=, >)")
    left = Term(found["lmetric"], found["lseries"])
    op: Op = found["op"]  # type: ignore[assignment]
    where = ((found["param"], found["where_op"], float(found["where"]))
             if found["param"] else None)
    if found["rmetric"] is None:
        unit = found["unit"]
        if unit is not None and unit not in TIME_UNITS:
            raise ValueError(f"{text!r}: unknown unit {unit!r} (time units: "
                             f"{', '.join(TIME_UNITS)}; leave it out for the metric's own)")
        return Expectation(text.strip(), left, op, None, bound=float(found["bound"]),
                           unit=unit, where=where)
    right = Term(found["rmetric"], found["rseries"])
    if right.metric != left.metric:
        raise ValueError(f"{text!r}: a ratio compares one metric in two series, not "
                         f"{left.metric} with {right.metric}")
    if right.series == left.series:
        raise ValueError(f"{text!r}: a ratio compares two series, not {left.series} with "
                         f"itself")
    factor = float(found["factor"] or 1)
    if factor <= 0:
        raise ValueError(f"{text!r}: the factor must be positive")
    return Expectation(text.strip(), left, op, right, factor=factor, where=where)


def judge(expectation: Expectation, trials: Mapping[Term, Sequence[float]],
          unit: str | None = None) -> Judgement:
    """`expectation` judged from the trial values of its terms (`unit`: the metric's)."""
    left = trials.get(expectation.left, ())
    if expectation.right is None:
        assert expectation.bound is not None
        bound = in_unit(expectation.bound, expectation.unit, unit)
        value = statistics.median(left) if left else None
        interval = median_interval(left)
        return _decide(expectation.op, value, interval, bound, expectation.left, left, unit)
    right = trials.get(expectation.right, ())
    change = change_interval(right, left)
    value = (statistics.median(left) / statistics.median(right)
             if left and right and statistics.median(right) else None)
    interval = None if change is None else (1 + change[0], 1 + change[1])
    return _decide(expectation.op, value, interval, expectation.factor, expectation.left,
                   left, None, right=(expectation.right, right))


def _decide(op: Op, value: float | None, interval: tuple[float, float] | None, bound: float,
            left: Term, left_trials: Sequence[float], unit: str | None,
            right: tuple[Term, Sequence[float]] | None = None) -> Judgement:
    what = f"{left} / {right[0]}" if right else str(left)
    if interval is None or value is None:
        counts = f"{len(left_trials)} trial{'s' * (len(left_trials) != 1)} of {left}" + (
            f" and {len(right[1])} of {right[0]}" if right else "")
        return Judgement("not-decided", value, None, None,
                         f"{counts}: an interval needs at least 2 a side"
                         + ("" if right is None or value is not None or not right[1]
                            else f" and a non-zero {right[0]}"))
    low, high = interval
    decidable = (high - low) / 2 / abs(bound) if bound else None
    shown = f"{_show(value, unit)} [{_show(low, unit)}, {_show(high, unit)}]"
    bound_shown = _show(bound, unit)
    if _compare(high if op in ("<=", "<") else low, op, bound):
        return Judgement("holds", value, interval, decidable,
                         f"{what} = {shown}: all of the interval {op} {bound_shown}")
    if not _compare(low if op in ("<=", "<") else high, op, bound):
        return Judgement("does-not-hold", value, interval, decidable,
                         f"{what} = {shown}: none of the interval {op} {bound_shown}")
    return Judgement("not-decided", value, interval, decidable,
                     f"{what} = {shown} straddles {bound_shown}: these trials decide a "
                     f"distance from it of {100 * (decidable or 0):.1f} % or more")


def _compare(value: float, op: str, bound: float) -> bool:
    return {"<=": value <= bound, "<": value < bound, ">=": value >= bound,
            ">": value > bound, "==": value == bound}[op]


def in_unit(value: float, given: str | None, unit: str | None) -> float:
    """A value written in `given` (None: already in `unit`) expressed in `unit`: time units
    convert; any other pair is a ValueError saying so."""
    if given is None or given == unit:
        return value
    if given not in TIME_UNITS or unit not in TIME_UNITS:
        raise ValueError(f"a figure in {given} on a metric measured in {unit or 'no unit'}")
    return value * TIME_UNITS[given] / TIME_UNITS[unit]


def _show(value: float, unit: str | None) -> str:
    return f"{value:.4g}" + (f" {unit}" if unit else "")
