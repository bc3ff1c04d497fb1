"""The fuzz's inputs (`bench.fuzz`, `backend/tests/test_fuzz.py`): the seeds (the real tools'
output, the runner's program outputs, latlab.result/v1 documents), their mutations, the
rule-breaking inputs no tool prints, and what every summary read back must hold."""

import json
import math
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from latlab_contract.fields import HIGHEST_NS, MAX_COUNT
from latlab_contract.latency import order_problem
from latlab_contract.parsers import read_output
from latlab_contract.vocabulary import SUMMARY_PERCENTILES

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = ROOT / "workers" / "tests" / "golden" / "adapters"
CONTRACT = "latlab.result/v1"
# The golden files of each adapter: (folder, name patterns), tool sources and notes left out.
SEED_FILES: dict[str, tuple[Path, tuple[str, ...]]] = {
    "go-bench": (ADAPTERS / "go-bench", ("**/*.txt",)),
    "google-benchmark": (ADAPTERS / "google-benchmark", ("**/*.json",)),
    "hyperfine": (ADAPTERS / "hyperfine", ("**/*.json",)),
    "wrk": (ADAPTERS / "wrk", ("*.txt",)),
    "vegeta": (ADAPTERS / "vegeta", ("**/*.json", "**/*.jsonl")),
    "oha": (ADAPTERS / "oha", ("**/*.json",)),
    "ghz": (ADAPTERS / "ghz", ("**/*.json",)),
    "criterion": (ADAPTERS / "criterion", ("*/criterion",)),
    "jmh": (ADAPTERS / "jmh", ("**/*.json",)),
    "pytest-benchmark": (ADAPTERS / "pytest-benchmark", ("**/*.json",)),
    "k6": (ADAPTERS / "k6", ("**/*.json", "**/*.json.gz")),
    "wrk2": (ADAPTERS / "wrk2", ("**/*.txt",)),
    "hlog": (ADAPTERS / "hlog", ("**/*.hlog",)),
    "catch2": (ADAPTERS / "catch2", ("[0-9]*/*.xml",)),
    "vitest-bench": (ADAPTERS / "vitest-bench", ("[0-9]*/*.json",)),
    "libtest": (ADAPTERS / "libtest", ("*/checksum.txt", "*/checksum-json.txt", "*/failing*.txt",
                                       "*/all.txt", "upstream/*.txt")),
    "gungraun": (ADAPTERS / "gungraun", ("0.2*/*/**/summary.json",)),
    "asv": (ADAPTERS / "asv", ("[0-9]*/fast*.json", "[0-9]*/slow*.json")),
    "benchmarkdotnet": (ADAPTERS / "benchmarkdotnet", ("[0-9]*/*.json", "upstream/*.json")),
    "ab": (ROOT / "workers" / "tests" / "golden" / "ab", ("*.txt",)),
    "latlab-json": (ROOT / "workers" / "tests" / "golden", ("echo-client.json",)),
    CONTRACT: (ROOT / "backend" / "tests" / "golden", ("v1-runner-*.json",)),
}
EXTREMES = ["0", "-1", "-0.0", str(MAX_COUNT + 1), str(2**63 - 1), str(2**63), str(2**64),
            "1e19", "1e308", "-1e308", "1e-320", "NaN", "Infinity", "-Infinity", "9" * 100,
            "0.0000001", str(HIGHEST_NS + 1), "4611686018427387904"]
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def seeds(adapter: str) -> list[bytes]:
    """The golden files of an adapter (or of the contract), as the bytes CI would send."""
    folder, patterns = SEED_FILES[adapter]
    found = []
    for pattern in patterns:
        for path in sorted(folder.glob(pattern)):
            if "source" in path.relative_to(folder).parts or path.name == "README.md":
                continue
            found.append(read_output(adapter, path).encode() if adapter in (
                "criterion", "k6") else path.read_bytes())
    if not found:
        raise SystemExit(f"no golden files for {adapter} in {folder}")
    return found


def mutate(seed: bytes, rng: random.Random) -> bytes:
    """One to three mutations of a seed."""
    data = seed
    for _ in range(rng.randint(1, 3)):
        data = rng.choice(_MUTATIONS)(data, rng)
    return data


def _swap_number(data: bytes, rng: random.Random) -> bytes:
    numbers = list(_NUMBER.finditer(data[:2_000_000]))
    if not numbers:
        return data
    found = rng.choice(numbers)
    return data[:found.start()] + rng.choice(EXTREMES).encode() + data[found.end():]


def _lines(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    at = rng.randrange(len(lines))
    action = rng.choice(("delete", "double", "swap", "cut"))
    if action == "delete":
        del lines[at]
    elif action == "double":
        lines.insert(at, lines[at])
    elif action == "swap":
        other = rng.randrange(len(lines))
        lines[at], lines[other] = lines[other], lines[at]
    else:
        return data[:rng.randrange(len(data) + 1)]
    return b"\n".join(lines)


def _bytes(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    junk = rng.choice([b"\x00", b"\xff\xfe", b"\xe2\x82", "µ".encode(), b"\r", b",", b"{",
                       b"]", b"%", b"inf", bytes([rng.randrange(256)])])
    if rng.random() < 0.5 and at < len(data):
        return data[:at] + junk + data[at + 1:]
    return data[:at] + junk + data[at:]


def _json_value(data: bytes, rng: random.Random) -> bytes:
    try:
        document = json.loads(data)
    except ValueError:
        return _swap_number(data, rng)
    holders = list(_containers(document))
    if not holders:
        return data
    holder, key = rng.choice(holders)
    holder[key] = rng.choice([
        None, True, -1, 0, 2**63, 2**64 + 1, 1e308, -1e-9, float("nan"), float("inf"), "",
        "x" * 1000, [], {}, [1.0] * 5000, _nested(rng.randint(50, 900)), {"a": {"b": [None]}},
    ])
    try:
        return json.dumps(document).encode()
    except RecursionError:  # a deep list inside a deep document: keep the seed
        return data


def _containers(value: Any) -> Iterator[tuple[Any, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield value, key
            yield from _containers(item)
    elif isinstance(value, list):
        for index, item in enumerate(value[:50]):
            yield value, index
            yield from _containers(item)


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


_MUTATIONS: list[Callable[[bytes, random.Random], bytes]] = [
    _swap_number, _swap_number, _lines, _bytes, _json_value, _json_value]


# Rule-breaking mutations: each makes an input no tool prints (a negative time or rate, a
# statistic out of order with another, a benchmark of zero iterations, an empty name), so
# every one must be refused; one stored is a bug.
_NEGATABLE = {
    "mean", "median", "min", "max", "stddev", "real_time", "cpu_time", "point_estimate",
    "avg", "med", "p(90)", "p(95)", "p(99)", "rate", "times", "data", "rawData", "50th",
    "90th", "95th", "99th", "average", "fastest", "slowest", "latency", "requestsPerSec",
    "rps", "ops", "throughput", "Mean", "Median", "Min", "Max", "Nanoseconds",
    "StandardDeviation", "new", "duration_ns"}
_ORDERED = [("p(90)", "p(95)"), ("p(95)", "p(99)"), ("med", "max"), ("min", "med"),
            ("50th", "99th"), ("min", "max"), ("median", "max"), ("min", "median"),
            ("fastest", "slowest"), ("p50", "p99"), ("p90", "p99")]
# The fields that name a benchmark in each format (ghz's `name` and k6's group names may be
# empty).
_IDS = {"google-benchmark": {"name"}, "pytest-benchmark": {"fullname"},
        "hyperfine": {"command"}, "criterion": {"full_id"}, "jmh": {"benchmark"},
        "benchmarkdotnet": {"Type", "Method"}, "gungraun": {"module_path"}}
_AGGREGATE = re.compile(r"_(mean|median|stddev|cv)$")
# The harnesses' formats: latlab's own (its program output, hlog, the contract) have the
# contract's rules, which the mutations above fuzz.
BREAKABLE = sorted(set(SEED_FILES) - {CONTRACT, "latlab-json", "hlog"})
_GO_LINE = re.compile(rb"^(Benchmark\S*\s+)(\d+)(\s+)(\d+(?:\.\d+)?)( ns/op)", re.M)
_WRK_AVG = re.compile(rb"^(\s*Latency\s+)(\d)", re.M)
_WRK_POINT = re.compile(rb"^\s*(50|99)(?:\.000)?%\s+(\S+)\s*$", re.M)
_CATCH2_MEAN = re.compile(rb"<mean value=\"(\d)")
_CATCH2_ITERATIONS = re.compile(rb" iterations=\"(\d+)\"")
_LIBTEST_MEDIAN = re.compile(rb"\.\.\. bench:\s+(\d)")
_LIBTEST_JSON_MEDIAN = re.compile(rb'"median": (\d)')


def break_rule(adapter: str, seed: bytes, rng: random.Random) -> tuple[str, bytes] | None:
    """The seed with one rule broken, and which; None when no rule applies to it."""
    try:
        document = json.loads(seed)
    except ValueError:
        return _break_text(adapter, seed, rng)
    choices: list[tuple[str, Callable[[], None]]] = []
    for holder, key in _containers(document):
        value = holder[key]
        named = key if isinstance(key, str) else None
        if named in _NEGATABLE and _positive(value):
            choices.append((f"negative {named}", _setter(holder, key, -value)))
        if named in _NEGATABLE and isinstance(value, list) and value and all(
                _positive(v) for v in value[:1]):
            choices.append((f"negative {named}[0]", _setter(value, 0, -value[0])))
        if named in _IDS.get(adapter, ()) and isinstance(value, str) and value:
            choices.append((f"empty {named}", _setter(holder, key, "")))
        if named == "iterations" and _positive(value) and holder.get("run_type") != "aggregate" \
                and not holder.get("error_occurred") \
                and not _AGGREGATE.search(str(holder.get("name", ""))):
            choices.append(("zero iterations", _setter(holder, key, 0)))
        if isinstance(value, dict):
            for low, high in _ORDERED:
                if _positive(value.get(low)) and _positive(value.get(high)) and (
                        value[low] < value[high]):
                    choices.append((f"{low} above {high}", _swapper(value, low, high)))
    if adapter == "asv":  # a timed row's first column holds its times, one per combination
        for name, row in document.get("results", {}).items():
            timed = name.rsplit(".", 1)[-1].lower().startswith("time")  # a track_ may be < 0
            if timed and isinstance(row, list) and row and isinstance(row[0], list) and row[0] \
                    and _positive(row[0][0]):
                choices.append(("negative result", _setter(row[0], 0, -row[0][0])))
    if not choices:
        return None
    rule, apply = rng.choice(choices)
    apply()
    return rule, json.dumps(document).encode()


def _break_text(adapter: str, seed: bytes, rng: random.Random
                ) -> tuple[str, bytes] | None:
    choices: list[tuple[str, bytes]] = []
    lines = list(_GO_LINE.finditer(seed)) if adapter == "go-bench" else []
    if lines:
        line = rng.choice(lines)
        choices += [
            ("zero iterations", seed[:line.start(2)] + b"0" + seed[line.end(2):]),
            ("negative ns/op", seed[:line.start(4)] + b"-" + seed[line.start(4):])]
    # wrk2's Avg is its thread statistics', which it prints beside the spectrum it is judged by
    if adapter == "wrk" and (average := _WRK_AVG.search(seed)) is not None:
        choices.append(("negative Avg", seed[:average.start(2)] + b"-" + seed[average.start(2):]))
    if adapter == "catch2":
        means = list(_CATCH2_MEAN.finditer(seed))
        iterations = list(_CATCH2_ITERATIONS.finditer(seed))
        if means:
            mean = rng.choice(means)
            choices.append(("negative mean", seed[:mean.start(1)] + b"-" + seed[mean.start(1):]))
        if iterations:
            count = rng.choice(iterations)
            choices.append(("zero iterations", seed[:count.start(1)] + b"0"
                            + seed[count.end(1):]))
    if adapter == "libtest":
        for pattern in (_LIBTEST_MEDIAN, _LIBTEST_JSON_MEDIAN):
            if found := list(pattern.finditer(seed)):
                median = rng.choice(found)
                choices.append(("negative median", seed[:median.start(1)] + b"-"
                                + seed[median.start(1):]))
    points = list(_WRK_POINT.finditer(seed))
    if len(points) == 2 and points[0].group(2) != points[1].group(2):
        first, second = points
        swapped = (seed[:first.start(2)] + second.group(2) + seed[first.end(2):second.start(2)]
                   + first.group(2) + seed[second.end(2):])
        choices.append(("99 % below 50 %", swapped))
    return rng.choice(choices) if choices else None


def _positive(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _setter(holder: Any, key: Any, value: Any) -> Callable[[], None]:
    return lambda: holder.__setitem__(key, value)


def _swapper(holder: dict[str, Any], low: str, high: str) -> Callable[[], None]:
    def swap() -> None:
        holder[low], holder[high] = holder[high], holder[low]
    return swap


def summary_problems(summary: dict[str, Any]) -> list[str]:
    """What a stored summary breaks of what every summary holds (empty when sound)."""
    problems = []
    count = summary.get("count")
    if not isinstance(count, int) or not 1 <= count <= MAX_COUNT * 1000:
        problems.append(f"count {count!r}")
    values: dict[str, float] = {}
    for key in ("min", *SUMMARY_PERCENTILES, "max", "mean", "stddev"):
        value = summary.get(key)
        if not isinstance(value, int | float) or not math.isfinite(value) or not (
                0 <= value <= HIGHEST_NS):
            problems.append(f"{key} {value!r}")
        else:
            values[key] = float(value)
    if problems:
        return problems
    problem = order_problem(values)
    return [] if problem is None else [problem]


def run_problems(run: dict[str, Any]) -> list[str]:
    """Every series' and trial's summary problems of a run read back (`GET /runs/{id}`)."""
    found = []
    for series in run["series"]:
        found += [f"series {series['labels']}: {p}" for p in summary_problems(series["summary"])]
        for trial in series["trials"]:
            found += [f"trial {trial['index']}: {p}" for p in summary_problems(trial["summary"])]
    return found
