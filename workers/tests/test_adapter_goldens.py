"""The harness adapters against the real tools' output (golden/adapters/*/upstream and the
per-version folders): every golden file found is parsed, and the result is compared with the
numbers the tool itself printed in the same run, read here from its own output (Java
HdrHistogram's summary and HistogramLogProcessor output, wrk2's and k6's text summaries,
k6's and pytest-benchmark's JSON and tables). Nothing expected is typed in by hand."""

import base64
import functools
import itertools
import json
import math
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hdrh.histogram import HdrHistogram

from latlab_contract.latency import Latency, Reported
from latlab_contract.parsers import ParseContext, ParseError, get_parser, read_output
from latlab_contract.result import SeriesIn, TrialIn
from latlab_contract.vocabulary import SUMMARY_PERCENTILES

GOLDEN = Path(__file__).parent / "golden" / "adapters"
CONTEXT = ParseContext()
# Nanoseconds per unit, as the tools print units.
UNIT_NS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9}


@functools.cache
def parse(adapter: str, path: Path) -> dict[tuple[tuple[str, str], ...], SeriesIn]:
    """The series an adapter reads from a golden file, by labels (read once per session)."""
    parsed = get_parser(adapter)(read_output(adapter, path), CONTEXT)
    return {tuple(sorted(s.labels.items())): s for s in parsed.series}


def only_trial(adapter: str, path: Path) -> TrialIn:
    (series,) = parse(adapter, path).values()
    (trial,) = series.trials
    return trial


def histogram(latency: Latency) -> HdrHistogram:
    assert latency.hdr is not None
    return HdrHistogram.decode(latency.hdr)


def summary_key(percentile: str) -> str:
    """`Reported`'s key of a percentile as tools write it: 99.9 -> p999, 50.000 -> p50."""
    return "p" + f"{float(percentile):g}".replace(".", "")


def same(ours: float | None, theirs: float) -> bool:
    """Equal to 1e-9 relative (a unit's conversion to ns in floating point)."""
    return ours is not None and math.isclose(ours, theirs, rel_tol=1e-9)


def printed_as(ours: float, printed: str, unit: str, thousands: bool = False) -> str:
    """Our value in the unit and to the decimals of a number the tool printed."""
    decimals = len(printed.partition(".")[2])
    return f"{ours / UNIT_NS[unit]:{',' if thousands else ''}.{decimals}f}"


def relative(path: Path) -> str:
    return str(path.relative_to(GOLDEN))


# HdrHistogram interval logs of the HdrHistogram projects, read by Java HdrHistogram 2.2.2.

HLOG = GOLDEN / "hlog" / "upstream"
JAVA_COLUMNS = ("intervals", "count", "min", "max", "mean", "stddev", "p50", "p90", "p99",
                "p999", "p9999")


def java_summary(log: Path) -> dict[str | None, dict[str, float]]:
    """`<log>.java-summary.txt`: Java's getters over every interval of the log, by tag."""
    found: dict[str | None, dict[str, float]] = {}
    text = log.with_name(f"{log.name}.java-summary.txt").read_text()
    for line in text.splitlines():
        if line and not line.startswith("#"):
            tag, *values = line.split()
            found[None if tag == "(none)" else tag] = dict(
                zip(JAVA_COLUMNS, (float(v) for v in values), strict=False))
    return found


def java_statistics(ours: HdrHistogram) -> dict[str, float]:
    """What Java's Histogram getters give of a histogram: min and max at their buckets' lowest
    and highest equivalent values, mean and deviation at the buckets' middles, each
    percentile the highest equivalent value of the bucket holding its nearest rank."""
    buckets = [(item.value_iterated_to, item.count_added_in_this_iter_step)
               for item in ours.get_recorded_iterator()]
    count = sum(n for _, n in buckets)
    middles = [(ours.get_lowest_equivalent_value(v)
                + (ours.get_highest_equivalent_value(v) - ours.get_lowest_equivalent_value(v)
                   + 1) // 2, n) for v, n in buckets]
    mean = sum(float(m) * n for m, n in middles) / count
    found = {"count": float(count), "min": float(ours.get_lowest_equivalent_value(buckets[0][0])),
             "max": float(buckets[-1][0]), "mean": mean,
             "stddev": math.sqrt(sum((m - mean) ** 2 * n for m, n in middles) / count)}
    so_far = list(itertools.accumulate(n for _, n in buckets))
    for key, percentile in SUMMARY_PERCENTILES.items():
        rank = max(1, math.ceil(Fraction(repr(percentile)) * count / 100))
        found[key] = float(next(v for (v, _), t in zip(buckets, so_far, strict=True)
                                if t >= rank))
    return found


NON_EMPTY_LOGS = [log for log in sorted(HLOG.glob("*.hlog"))
                  if all(s["count"] for s in java_summary(log).values())]
EMPTY_LOGS = [log for log in sorted(HLOG.glob("*.hlog")) if log not in NON_EMPTY_LOGS]


@pytest.mark.parametrize("log", NON_EMPTY_LOGS, ids=lambda p: p.name)
def test_hlog_summary_is_java_hdrhistograms_own(log: Path) -> None:
    javas = java_summary(log)
    series = parse("hlog", log)
    assert set(series) == {() if tag is None else (("tag", tag),) for tag in javas}
    for tag, java in javas.items():
        (trial,) = series[() if tag is None else (("tag", tag),)].trials
        assert trial.intervals is not None and len(trial.intervals) == java["intervals"]
        ours = histogram(trial.latency)
        assert ours.get_total_count() == java["count"]
        assert not trial.latency.rebuilt
        # Logs in another layout carry HdrHistogram's statistics in it; in latlab's layout
        # the histogram itself gives them.
        stats = (trial.latency.reported.model_dump() if trial.latency.reported is not None
                 else java_statistics(ours))
        for key in ("min", "max", "p50", "p90", "p99", "p999", "p9999"):
            assert stats[key] == java[key], (tag, key)
        for key in ("mean", "stddev"):
            assert math.isclose(stats[key], java[key], rel_tol=1e-9), (tag, key)


def encoding(log: Path) -> str:
    """The HdrHistogram encoding of a log's first histogram, from its cookie."""
    payload = next(line for line in log.read_text().splitlines()
                   if "HIST" in line and not line.startswith("#")).split(",")[-1].strip()
    cookie = int.from_bytes(base64.b64decode(payload)[:4], "big") & 0xFFFFFF0F
    return {0x1C849309: "V0", 0x1C849302: "V1", 0x1C849304: "V2"}[cookie]


def test_hlog_logs_of_every_encoding_are_among_those_checked() -> None:
    assert {encoding(log) for log in NON_EMPTY_LOGS} == {"V0", "V1", "V2"}


@pytest.mark.parametrize("log", EMPTY_LOGS, ids=lambda p: p.name)
def test_hlog_empty_histogram_is_an_empty_trial_without_statistics(log: Path) -> None:
    javas = java_summary(log)
    series = parse("hlog", log)
    assert set(series) == {() if tag is None else (("tag", tag),) for tag in javas}
    for tag in javas:
        (trial,) = series[() if tag is None else (("tag", tag),)].trials
        assert histogram(trial.latency).get_total_count() == 0
        assert trial.latency.reported is None
        assert trial.intervals is not None
        assert [i.count for i in trial.intervals] == [0] * int(javas[tag]["intervals"])


def processor_outputs() -> list[Path]:
    """HistogramLogProcessor's `.hgrm` files, the `-start` run where the default one dropped
    the intervals before StartTime."""
    found = sorted(HLOG.glob("*.hgrm"))
    return [p for p in found if p.with_name(p.name.replace(".hgrm", ".all.hgrm")) not in found]


@pytest.mark.parametrize("hgrm", processor_outputs(), ids=lambda p: p.name)
def test_hlog_matches_the_log_processors_footer(hgrm: Path) -> None:
    log_name, _, rest = hgrm.name.partition(".hlog")
    tag = rest.removeprefix(".tag-").removesuffix(".hgrm") if rest.startswith(".tag-") else None
    (trial,) = parse("hlog", HLOG / f"{log_name}.hlog")[
        () if tag is None else (("tag", tag),)].trials
    text = hgrm.read_text()
    mean, stddev = re.search(r"#\[Mean\s*=\s*([\d.]+), StdDeviation\s*=\s*([\d.]+)\]",
                             text).groups()
    top, count = re.search(r"#\[Max\s*=\s*([\d.]+), Total count\s*=\s*(\d+)\]", text).groups()
    ours = histogram(trial.latency)
    assert ours.get_total_count() == int(count)
    if not int(count):
        return
    stats = (trial.latency.reported.model_dump() if trial.latency.reported is not None
             else java_statistics(ours))
    assert printed_as(stats["mean"], mean, "ns") == mean
    assert printed_as(stats["stddev"], stddev, "ns") == stddev
    assert printed_as(stats["max"], top, "ns") == top


# wrk2: the README's published outputs and runs of wrk2 at 44a94c1.

WRK2_FILES = sorted((GOLDEN / "wrk2").rglob("*.txt"))
WRK2_SECTION = "Latency Distribution (HdrHistogram - "
WRK2_PRINTED = re.compile(r"^\s*([\d.]+)%\s+([\d.]+)(us|ms|s|m|h)\s*$", re.MULTILINE)


@pytest.mark.parametrize("path", [p for p in WRK2_FILES if WRK2_SECTION in p.read_text()],
                         ids=relative)
def test_wrk2_summary_is_what_wrk2_printed(path: Path) -> None:
    trial = only_trial("wrk2", path)
    sections = path.read_text().split(WRK2_SECTION)[1:]
    assert sections[0].startswith("Recorded")
    views = [trial.latency, trial.latency_uncorrected]
    assert (trial.latency_uncorrected is not None) == (len(sections) == 2)
    for section, latency in zip(sections, views, strict=False):
        assert latency is not None and latency.rebuilt and latency.reported is not None
        printed = latency.reported.model_dump()
        keys = set()
        for percentile, value, unit in WRK2_PRINTED.findall(section):
            key = summary_key(percentile)
            if key in printed:
                keys.add(key)
                assert printed_as(printed[key], value, unit) == value, key
        assert keys == {"p50", "p90", "p99", "p999", "p9999"}
        mean, stddev = re.search(r"#\[Mean\s*=\s*([\d.]+), StdDeviation\s*=\s*([\d.]+)\]",
                                 section).groups()
        assert printed_as(printed["mean"], mean, "ms") == mean
        assert printed_as(printed["stddev"], stddev, "ms") == stddev
        count = re.search(r"#\[Max\s*=\s*[\d.]+, Total count\s*=\s*(\d+)\]", section).group(1)
        assert histogram(latency).get_total_count() == int(count)


@pytest.mark.parametrize("path", [p for p in WRK2_FILES if WRK2_SECTION not in p.read_text()],
                         ids=relative)
def test_wrk2_without_latency_flag_is_refused(path: Path) -> None:
    with pytest.raises(ParseError, match="run wrk2 with --latency"):
        get_parser("wrk2")(path.read_text(), CONTEXT)


# k6: summaries (--summary-export, handleSummary data, the machine-readable shape), every
# sample (--out json), and k6's own text summary on stdout of the same run.

K6 = GOLDEN / "k6"
K6_SUMMARIES = sorted(K6.rglob("*.json"))
K6_PRINTED = re.compile(r"([a-z]+|p\([\d.]+\))=([\d.]+)(ns|µs|ms|s)(?=\s|$)")


def k6_trial(path: Path) -> TrialIn:
    """The trial of all requests: the series without labels (k6's sub-metrics, such as
    `{expected_response:true}`, are series of their own)."""
    (trial,) = parse("k6", path)[()].trials
    return trial


def k6_key(stat: str) -> str | None:
    """`Reported`'s key of one of k6's trend stats (avg, med, p(95) or p95, ...)."""
    named = {"avg": "mean", "min": "min", "med": "p50", "max": "max"}
    if stat in named:
        return named[stat]
    number = stat.removeprefix("p(").removesuffix(")").removeprefix("p")
    return summary_key(number) if stat.startswith("p") else None


def k6_duration(document: dict) -> dict[str, float]:
    """`http_req_duration`'s trend stats (ms) in any of k6's summary shapes."""
    if "results" in document and "metrics" not in document:
        return next(m["values"] for m in document["results"]["metrics"]
                    if m["name"] == "http_req_duration")
    raw = document["metrics"]["http_req_duration"]
    values = raw.get("values", raw)
    return {stat: value for stat, value in values.items() if stat != "thresholds"}


def k6_requests(document: dict) -> int:
    if "results" in document and "metrics" not in document:
        return next(m["values"]["count"] for m in document["results"]["metrics"]
                    if m["name"] == "http_reqs")
    raw = document["metrics"]["http_reqs"]
    return int(raw.get("values", raw)["count"])


def k6_text(milliseconds: float) -> str:
    """A duration as k6's text summary prints it (`humanizeGenericDuration`): truncated to
    two decimals, trailing zeros dropped, in ns, µs, ms or s."""
    assert milliseconds < 60_000  # longer ones print minutes; none here

    def truncated(value: float) -> str:
        return f"{math.trunc(100 * value) / 100:.2f}".rstrip("0").rstrip(".")

    if milliseconds == 0:
        return "0s"
    if milliseconds < 0.001:
        return f"{math.trunc(milliseconds * 1_000_000)}ns"
    if milliseconds < 1:
        return truncated(milliseconds * 1000) + "µs"
    if milliseconds < 1000:
        return truncated(milliseconds) + "ms"
    return truncated(milliseconds / 1000) + "s"


def k6_printed(stdout: Path) -> tuple[dict[str, str], int] | None:
    """The `http_req_duration` stats and the `http_reqs` count k6 printed, if it printed its
    text summary (not with a handleSummary)."""
    text = stdout.read_text() if stdout.exists() else ""
    line = re.search(r"http_req_duration\.+: (.*)$", text, re.MULTILINE)
    if line is None:
        return None
    stats = {stat: value + unit for stat, value, unit in K6_PRINTED.findall(line.group(1))}
    return stats, int(re.search(r"http_reqs\.+: (\d+)", text).group(1))


@pytest.mark.parametrize("path", K6_SUMMARIES, ids=relative)
def test_k6_summary_keeps_k6s_own_statistics(path: Path) -> None:
    document = json.loads(path.read_text())
    trial = k6_trial(path)
    assert trial.latency.rebuilt and trial.latency.reported is not None
    assert histogram(trial.latency).get_total_count() == k6_requests(document)
    theirs = {k6_key(stat): value * 1e6 for stat, value in k6_duration(document).items()}
    theirs.pop(None, None)
    ours = trial.latency.reported.model_dump(exclude_none=True)
    assert set(ours) == set(theirs)
    for key, value in theirs.items():
        assert same(ours[key], value), key


K6_TEXT_RUNS = [p for p in K6_SUMMARIES if p.name == "summary.json"
                and k6_printed(p.with_name("stdout.txt")) is not None]


@pytest.mark.parametrize("path", K6_TEXT_RUNS, ids=relative)
def test_k6_summary_statistics_are_k6s_printed_ones(path: Path) -> None:
    printed, requests = k6_printed(path.with_name("stdout.txt"))
    trial = k6_trial(path)
    assert histogram(trial.latency).get_total_count() == requests
    assert trial.latency.reported is not None
    ours = trial.latency.reported.model_dump()
    exported = {k6_key(stat) for stat in k6_duration(json.loads(path.read_text()))}
    for stat, value in printed.items():
        key = k6_key(stat)
        if key in exported:
            assert k6_text(ours[key] / 1e6) == value, stat
        else:  # printed but not in the JSON (the machine-readable summary's p(99), p(99.9))
            assert ours[key] is None, stat


def k6_position(stat: str, count: int) -> float:
    """Where k6 reads a percentile in its sorted values: p x (n - 1), interpolated."""
    fraction = 0.5 if stat == "med" else float(stat.strip("p()")) / 100
    return fraction * (count - 1)


K6_SAMPLE_RUNS = sorted(K6.rglob("samples.json.gz"))


@pytest.mark.parametrize("path", K6_SAMPLE_RUNS, ids=relative)
def test_k6_samples_are_the_requests_k6_summed_up(path: Path) -> None:
    found = k6_printed(path.with_name("stdout.txt"))
    assert found is not None, "the run's stdout.txt has no text summary"
    printed, requests = found
    trial = k6_trial(path)
    samples = sorted(trial.latency.samples_ns or [])
    assert len(samples) == requests
    assert k6_text(samples[0] / 1e6) == printed["min"]
    assert k6_text(samples[-1] / 1e6) == printed["max"]
    assert k6_text(sum(samples) / len(samples) / 1e6) == printed["avg"]
    for stat, value in printed.items():
        if stat.startswith(("p", "med")):
            # k6 printed its interpolated value truncated to its last digit.
            at = k6_position(stat, len(samples))
            low, high = samples[math.floor(at)], samples[math.ceil(at)]
            number, unit = re.fullmatch(r"([\d.]+)(\D+)", value).groups()
            step = UNIT_NS[unit] * 10.0 ** -len(number.partition(".")[2])
            shown = float(number) * UNIT_NS[unit]
            dust = 1e-6  # floating point of the unit conversion
            assert low - dust <= shown + step and shown <= high + dust, stat


@pytest.mark.parametrize("path", K6_SAMPLE_RUNS, ids=relative)
def test_k6_samples_give_k6s_exported_percentiles(path: Path) -> None:
    """k6's own JSON of the same run, to full precision: its percentiles are the linear
    interpolation of our samples, its min, max and avg theirs."""
    exported = k6_duration(json.loads(path.with_name("summary.json").read_text()))
    samples = sorted(k6_trial(path).latency.samples_ns or [])
    assert same(samples[0], exported["min"] * 1e6)
    assert same(samples[-1], exported["max"] * 1e6)
    assert math.isclose(sum(samples) / len(samples), exported["avg"] * 1e6, rel_tol=1e-9)
    for stat, value in exported.items():
        if stat.startswith(("p", "med")):
            at = k6_position(stat, len(samples))
            low, high = samples[math.floor(at)], samples[math.ceil(at)]
            assert math.isclose(low + (high - low) * (at - math.floor(at)), value * 1e6,
                                rel_tol=1e-9), stat


def test_k6_docs_example_keeps_p95_and_interpolates_p99() -> None:
    path = K6 / "upstream" / "docs-summary-export-example.json"
    duration = k6_duration(json.loads(path.read_text()))
    latency = k6_trial(path).latency
    assert latency.rebuilt and latency.reported is not None
    assert same(latency.reported.p95, duration["p(95)"] * 1e6)
    assert same(latency.reported.max, duration["max"] * 1e6)
    assert duration["max"] > duration["p(95)"]
    assert latency.reported.p99 is None and "p(99)" not in duration
    p99 = histogram(latency).get_value_at_percentile(99)
    assert duration["p(95)"] * 1e6 < p99 <= histogram(latency).get_max_value()


def test_k6_docs_abridged_handle_summary_is_not_json() -> None:
    path = K6 / "upstream" / "docs-handle-summary-data-abridged.jsonc"
    with pytest.raises(ParseError, match="not JSON"):
        get_parser("k6")(path.read_text(), CONTEXT)


# pytest-benchmark: --benchmark-json and saved runs of each version, with its printed table.

PYTEST_BENCHMARK = GOLDEN / "pytest-benchmark"
PB_FILES = sorted(p for p in PYTEST_BENCHMARK.rglob("*.json") if "source" not in p.parts)
PB_COLUMNS = {"Min": "min", "Max": "max", "Mean": "mean", "StdDev": "stddev"}


def pb_table(out: Path) -> tuple[str, str, dict[str, dict[str, str]]]:
    """pytest-benchmark's printed table: (time unit, ops unit prefix, {name: {column: value}})
    (progress lines ending in carriage returns are lines of their own here)."""
    lines = out.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Name (time in "))
    header = lines[at]
    unit = re.match(r"Name \(time in (\w+)\)", header).group(1)
    ops = re.search(r"OPS \((\w*)ops/s\)", header)
    columns = re.sub(r"\([^)]*\)", " ", header).split()[1:]
    rows: dict[str, dict[str, str]] = {}
    for line in lines[at + 2:]:
        if line.startswith("---"):
            break
        name, *fields = line.split()
        values = [f for f in fields if not f.startswith("(")]
        rows[name] = dict(zip(columns, values, strict=True))
    return unit, ops.group(1) if ops else "", rows


def pb_labels(benchmark: dict) -> tuple[tuple[str, str], ...]:
    labels = {"benchmark": benchmark["fullname"]}
    if benchmark.get("group") is not None:
        labels["group"] = str(benchmark["group"])
    return tuple(sorted(labels.items()))


def pb_printed(path: Path) -> Path | None:
    """The table of the run a JSON file came from: its version folder's `out.txt`."""
    out = PYTEST_BENCHMARK / path.relative_to(PYTEST_BENCHMARK).parts[0] / "out.txt"
    return out if out.exists() else None


@pytest.mark.parametrize("path", PB_FILES, ids=relative)
def test_pytest_benchmark_summary_is_its_own_stats(path: Path) -> None:
    series = parse("pytest-benchmark", path)
    for benchmark in json.loads(path.read_text())["benchmarks"]:
        stats = benchmark["stats"]
        (trial,) = series[pb_labels(benchmark)].trials
        reported = trial.latency.reported
        assert reported is not None
        for key in ("min", "max", "mean", "stddev"):
            assert same(getattr(reported, key), stats[key] * 1e9), key
        assert same(reported.p50, stats["median"] * 1e9)
        assert trial.latency.rebuilt == ("data" not in stats)
        if "data" in stats:
            assert len(trial.latency.samples_ns or []) == len(stats["data"]) == stats["rounds"]
        else:
            assert histogram(trial.latency).get_total_count() == stats["rounds"]


PB_PRINTED_FILES = [p for p in PB_FILES if pb_printed(p) is not None]


def pb_printed_rows(path: Path) -> list[tuple[dict[str, str], TrialIn, str, str]]:
    """(printed row, our trial, time unit, OPS unit prefix) of each benchmark of a file."""
    unit, ops_prefix, rows = pb_table(pb_printed(path))
    series = parse("pytest-benchmark", path)
    benchmarks = json.loads(path.read_text())["benchmarks"]
    assert set(rows) == {b["name"] for b in benchmarks}
    return [(rows[b["name"]], series[pb_labels(b)].trials[0], unit, ops_prefix)
            for b in benchmarks]


@pytest.mark.parametrize("path", PB_PRINTED_FILES, ids=relative)
def test_pytest_benchmark_summary_is_its_printed_table(path: Path) -> None:
    for printed, trial, unit, ops_prefix in pb_printed_rows(path):
        reported = trial.latency.reported
        assert isinstance(reported, Reported)
        for column, key in PB_COLUMNS.items():
            value = printed[column]
            assert printed_as(getattr(reported, key), value, unit, thousands=True) == value, column
        assert trial.metrics["rounds"] == int(printed["Rounds"])
        assert trial.metrics["iterations"] == int(printed["Iterations"])
        if "OPS" in printed:
            scale = {"": 1.0, "K": 1e3, "M": 1e6}[ops_prefix]
            ops = printed["OPS"]
            assert printed_as(trial.metrics["ops_per_s"] / scale, ops, "ns", True) == ops


@pytest.mark.parametrize("path", PB_PRINTED_FILES, ids=relative)
def test_pytest_benchmark_median_is_its_printed_median(path: Path) -> None:
    for printed, trial, unit, _ in pb_printed_rows(path):
        assert trial.latency.reported is not None
        median = printed["Median"]
        assert printed_as(trial.latency.reported.p50, median, unit, thousands=True) == median


def test_pytest_benchmark_2_5_table_is_not_read() -> None:
    """2.5.0 writes no JSON, only its table: the adapter refuses the text."""
    with pytest.raises(ParseError, match="not JSON"):
        get_parser("pytest-benchmark")(
            (PYTEST_BENCHMARK / "2.5.0" / "out.txt").read_text(), CONTEXT)
