"""How long a job will take, known before it runs: the api sets a job's timeout from it (and
refuses a job too long for any timeout), the dashboard shows it, the runner checks every
suite's estimate when it loads the suite.

A suite states the seconds one trial of one series takes as an arithmetic expression over
the series' params and axis values (`[estimate] trial_s` in suite.toml), such as
`duration + warmup + 2` or `orders / 5000 + 3`. The job's estimate is that expression summed
over the series the axes expand into, times the trials each series runs.
"""

import ast
import itertools
import math
import operator
from collections.abc import Callable, Mapping
from typing import Any

AxisValue = str | int | float

# The time a job spends outside its trials: a first build of the suite's programs (a cached
# build takes seconds), servers starting, the result's upload.
SETUP_S = 600
# The margin on the trials' estimate: a busy host runs slower than the one that wrote it.
MARGIN = 1.5
MAX_TIMEOUT_S = 6 * 3600  # the longest a job may be given
MIN_TIMEOUT_S = 900  # no job is given less unless it asks


class EstimateError(ValueError):
    pass


def axis_values(given: Any) -> list[AxisValue]:
    """An axis param's values: a list, a comma-separated text, or one value; each once."""
    values = given if isinstance(given, list) else (
        [v.strip() for v in given.split(",") if v.strip()] if isinstance(given, str)
        else [given])
    return list(dict.fromkeys(values))


def series_contexts(axes: Mapping[str, list[AxisValue] | str],
                    params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The params each series sees: the job's, its axis values by the axis's name and, for an
    axis taken from a param, by the param's name too (the cartesian product of the axes,
    `axes` mapping a name to its fixed values or to the param that gives them)."""
    expanded = []
    for name, source in axes.items():
        values = axis_values(params.get(source)) if isinstance(source, str) else source
        expanded.append([(name, source, value) for value in values])
    contexts = []
    for combination in itertools.product(*expanded):
        context = dict(params)
        for name, source, value in combination:
            context[name] = value
            if isinstance(source, str):
                context[source] = value
        contexts.append(context)
    return contexts


_OPERATORS: dict[type, Callable[..., Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.USub: operator.neg,
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: operator.eq, ast.NotEq: operator.ne,
}
_FUNCTIONS: dict[str, Callable[..., float]] = {
    "max": max, "min": min, "count": lambda value: float(len(axis_values(value))),
}


class Expression:
    """A suite's trial-time expression: numbers, params, + - * / //, comparisons (of numbers,
    or of a param with a quoted text), `a if test else b`, max(), min() and count() (the items
    of a list or comma-separated text). Nothing else parses, so a suite file cannot run code
    in the api."""

    def __init__(self, text: str) -> None:
        try:
            self._tree = ast.parse(text, mode="eval").body
        except SyntaxError as error:
            raise EstimateError(f"'{text}' does not parse: {error.msg}") from None
        self.text = text
        self._check(self._tree)

    def seconds(self, context: Mapping[str, Any]) -> float:
        value = self._value(self._tree, context)
        number = float(value)
        if not math.isfinite(number) or number < 0:
            raise EstimateError(f"'{self.text}' gave {number}, not a duration")
        return number

    def _check(self, node: ast.expr) -> None:
        allowed = (ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp, ast.Call, ast.Name,
                   ast.Constant)
        if not isinstance(node, allowed) or (
                isinstance(node, ast.BinOp | ast.UnaryOp) and type(node.op) not in _OPERATORS):
            raise EstimateError(f"'{self.text}': {ast.unparse(node)} is not allowed")
        if isinstance(node, ast.Compare) and (
                len(node.ops) != 1 or type(node.ops[0]) not in _OPERATORS):
            raise EstimateError(f"'{self.text}': one comparison at a time")
        if isinstance(node, ast.Call) and (
                not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS
                or node.keywords):
            raise EstimateError(f"'{self.text}': calls are {', '.join(_FUNCTIONS)} only")
        if isinstance(node, ast.Constant) and (
                isinstance(node.value, bool) or not isinstance(node.value, int | float | str)):
            raise EstimateError(f"'{self.text}': {node.value!r} is not a number or text")
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self._check(child)
            elif not isinstance(child, ast.operator | ast.unaryop | ast.cmpop | ast.expr_context):
                raise EstimateError(f"'{self.text}': {ast.dump(child)} is not allowed")

    def _value(self, node: ast.expr, context: Mapping[str, Any]) -> Any:
        match node:
            case ast.Constant(value=value):
                return value
            case ast.Name(id=name):
                if name not in context:
                    raise EstimateError(f"'{self.text}': no param '{name}'")
                return _number(context[name])
            case ast.UnaryOp(op=op, operand=operand):
                return _OPERATORS[type(op)](self._value(operand, context))
            case ast.BinOp(left=left, op=op, right=right):
                try:
                    return _OPERATORS[type(op)](self._value(left, context),
                                                self._value(right, context))
                except (ZeroDivisionError, TypeError) as error:
                    raise EstimateError(f"'{self.text}': {error}") from None
            case ast.Compare(left=left, ops=[op], comparators=[right]):
                return _OPERATORS[type(op)](self._value(left, context),
                                            self._value(right, context))
            case ast.IfExp(test=test, body=body, orelse=orelse):
                return self._value(body if self._value(test, context) else orelse, context)
            case ast.Call(func=ast.Name(id="count"), args=[argument]) if isinstance(
                    argument, ast.Name):
                return _FUNCTIONS["count"](context.get(argument.id))
            case ast.Call(func=ast.Name(id=name), args=args) if args:
                return _FUNCTIONS[name](*(self._value(a, context) for a in args))
        raise EstimateError(f"'{self.text}': {ast.unparse(node)} cannot be evaluated")


def _number(value: Any) -> Any:
    """A param as a number where it is one (a numeric text too); else as given."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def trials_s(trial_s: str, series: list[dict[str, Any]], trials: int) -> float:
    """Seconds the trials of a job take: `trials` of every series (`series_contexts`)."""
    expression = Expression(trial_s)
    return trials * sum(expression.seconds(context) for context in series)


def timeout_s(estimate_s: float) -> int:
    """The timeout a job gets from its estimate: the margin, time to build and start, and
    never under MIN_TIMEOUT_S."""
    return max(MIN_TIMEOUT_S, math.ceil(MARGIN * estimate_s + SETUP_S))
