"""Gungraun's (iai-callgrind's, as it was named to 0.16) benchmark summaries: the
`summary.json` it writes for every benchmark with `--save-summary=json` (or `pretty-json`;
`GUNGRAUN_SAVE_SUMMARY`, `IAI_CALLGRIND_SAVE_SUMMARY`), one file, a JSON list of them, or the
`target/gungraun` (`target/iai`) directory, whose summaries are read together (`bundle`).
Summary format 7 (gungraun 0.20): the earlier formats (iai-callgrind 0.14 to 0.16, gungraun
0.17 to 0.19: format 6 and before) record no time at all, which a trial needs, and are refused
saying so.

Gungraun runs each benchmark once under Valgrind's Callgrind and counts what the CPU was
asked to do: instructions executed, data reads and writes, cache misses in Callgrind's
simulated caches. Counts, not times: the same build counts (almost) the same on any machine,
so runs are comparable across noisy hosts, and their run-to-run spread is tiny (often none):
the gate's smallest detectable change is then the project's `min_effect` (5 %), which a team
gating on instructions usually lowers (`PUT /gate-settings`).

Each summary is one trial of the series named by its benchmark (`benchmark`: its
`module_path`, "benches_file::group::function") and, for `#[bench::id]` cases, `id`. Its
metrics are Callgrind's total over the benchmark's parts (the `new` side: `old`, the run
before on the same machine, and the change gungraun computed from it are left to the lab's
own comparison):
- `instructions`: Callgrind's `Ir` (count, lower-better), the CI gate's headline;
- Callgrind's other events as it names them (`Dr`, `Dw`, `I1mr`, `D1mr`, `D1mw`, `ILmr`,
  `DLmr`, `DLmw`, and any other it collected, e.g. `SysCount`), counts, lower-better;
- gungraun's derived counts, as it prints them (from the events above, not measured
  separately): `L1_hits`, `LL_hits`, `RAM_hits`, `total_read_write` and `estimated_cycles`
  (its model: L1 hits + 5 x LL hits + 35 x RAM hits).
Rates (`L1HitRate`, `I1MissRate`...) follow from the counts and are left out.
The trial's latency is the one time gungraun measured, the Callgrind run's wall time
(`duration_ns` of its profile: Valgrind's, tens of times the code's own, not the code's
speed), as one figure; every run says so in a note. Profiles of other tools (DHAT, Memcheck,
Cachegrind...) are named in a note and not read.

Gungraun's own verdict under `--callgrind-limits` (`regressions`) is kept as a note; the lab's
gate judges the counts against their history. A benchmark that panicked writes no summary
(gungraun stops with an error and `cargo bench` exits non-zero): it is missing from the run,
and the gate names a series that vanished. Refused, naming the JSON path: not a summary, a
format before 7, no Callgrind profile, a negative number anywhere (gungraun writes none: its
changes are strings), a count that is not a whole number.
"""

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    checked,
    duration_ns,
    load_json,
    member,
    metric_name,
    named,
    no_negative,
    one_figure,
)
from latlab_contract.result import SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

_COUNT = "count"
# Gungraun's derived counts, by their keys in the summary.
_DERIVED = {"L1hits": ("L1_hits", "L1 hits (gungraun, from the events)"),
            "LLhits": ("LL_hits", "last-level cache hits (gungraun, from the events)"),
            "RamHits": ("RAM_hits", "RAM hits (gungraun, from the events)"),
            "TotalRW": ("total_read_write", "instruction and data reads and writes"),
            "EstimatedCycles": ("estimated_cycles",
                                "estimated cycles (gungraun's model: L1 + 5 LL + 35 RAM hits)")}
INSTRUCTIONS = MetricSpec(unit=_COUNT, direction="lower", label="instructions executed (Ir)")
_FIRST_VERSION = 7  # the first to record a time (each tool run's `duration_ns`)


def bundle(directory: Path) -> str:
    """The adapter's input from a `target/gungraun` (or `target/iai`) tree: every summary."""
    found = sorted(directory.rglob("summary.json"))
    if not found:
        raise ParseError(f"{directory}: no summary.json (is it target/gungraun, written with "
                         "--save-summary=json?)")
    items = []
    for path in found:
        try:
            items.append(json.loads(path.read_text()))
        except (OSError, json.JSONDecodeError) as error:
            raise ParseError(f"{path}: {error}") from error
    return json.dumps(items)


def parse(text: str, context: ParseContext) -> Parsed:
    if not text.lstrip().startswith(("{", "[")):
        raise ParseError("line 1: not a gungraun summary.json (run the benchmarks with "
                         "--save-summary=json and give target/gungraun or its summary.json "
                         "files; the console table is not read)")
    document = load_json(text)
    summaries = document if isinstance(document, list) else [document]
    if not summaries:
        raise ParseError("$: no summaries")
    no_negative(document, "$", "gungraun")  # in what is not read too: counts, times, rates
    found: dict[tuple[tuple[str, str], ...], list[TrialIn]] = {}
    info: dict[str, MetricSpec] = {"instructions": INSTRUCTIONS}
    other_tools: set[str] = set()
    regressions: list[str] = []
    for index, summary in enumerate(summaries):
        path = f"$[{index}]" if isinstance(document, list) else "$"
        labels, trial, tools, regressed = _summary(checked(summary, path, dict), path, info)
        found.setdefault(tuple(labels.items()), []).append(trial)
        other_tools |= tools
        regressions += regressed
    try:
        series = [SeriesIn(labels=dict(labels), trials=trials)
                  for labels, trials in found.items()]
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error
    notes = ["latency here is Callgrind's wall time of each benchmark (Valgrind's, not the "
             "code's speed): gungraun counts, it does not time; read `instructions`"]
    if other_tools:
        notes.append(f"profiles of {', '.join(sorted(other_tools))} are not read (Callgrind's "
                     "are)")
    if regressions:
        notes.append(f"gungraun's own limits: {'; '.join(regressions)}"[:500])
    return Parsed(series=series, metric_info=info, gate=["instructions"], notes=notes)


def _summary(summary: dict[str, Any], path: str, info: dict[str, MetricSpec]
             ) -> tuple[dict[str, str], TrialIn, set[str], list[str]]:
    version = member(summary, "version", path, str)
    if not version.isdigit() or int(version) < _FIRST_VERSION:
        raise ParseError(f"{path}.version: summary format {version!r} (iai-callgrind, gungraun "
                         f"before 0.20) records no time, which a trial's latency needs: run "
                         f"gungraun 0.20 or later (format {_FIRST_VERSION})")
    labels = {"benchmark": named(summary, "module_path", path)}
    if isinstance(summary.get("id"), str) and summary["id"]:
        labels["id"] = summary["id"]
    profiles = member(summary, "profiles", path, list)
    callgrind = None
    tools = set()
    for p_index, profile in enumerate(profiles):
        p_path = f"{path}.profiles[{p_index}]"
        tool = member(checked(profile, p_path, dict), "tool", p_path, str)
        if tool == "Callgrind":
            callgrind = (profile, p_path)
        else:
            tools.add(tool)
    if callgrind is None:
        raise ParseError(f"{path}.profiles: no Callgrind profile (gungraun's default tool)")
    profile, p_path = callgrind
    total = member(member(profile, "data", p_path, dict), "total", f"{p_path}.data", dict)
    t_path = f"{p_path}.data.total"
    metrics = _metrics(member(total, "metrics", t_path, dict), f"{t_path}.metrics", info)
    where = f"{p_path}.duration_ns"
    wall = duration_ns(member(profile, "duration_ns", p_path, float), "ns", where)
    try:
        trial = TrialIn(latency=one_figure(wall, where), metrics=metrics)
    except ValidationError as error:
        raise ParseError(f"{t_path}: {validation_message(error)}") from error
    name = labels["benchmark"] + (f" {labels['id']}" if "id" in labels else "")
    regressed = [f"{name}: {_regression(item)}" for item in total.get("regressions") or []]
    return labels, trial, tools, regressed


def _metrics(found: dict[str, Any], path: str, info: dict[str, MetricSpec]) -> dict[str, float]:
    metrics: dict[str, float] = {}
    for key, result in found.items():
        values = member(member(result, "values", f"{path}.{key}", dict), "new",
                        f"{path}.{key}.values", (int, float, dict))
        if isinstance(values, dict):  # an annotated metric (v7's perf results)
            values = member(values, "value", f"{path}.{key}.values.new", (int, float))
        if isinstance(values, float):
            continue  # a rate, derived from the counts
        if key == "Ir":
            name = "instructions"
        elif key in _DERIVED:
            name, label = _DERIVED[key]
            info[name] = MetricSpec(unit=_COUNT, direction="lower", label=label)
        else:
            name = metric_name(key)
            info.setdefault(name, MetricSpec(unit=_COUNT, direction="lower",
                                             label=f"Callgrind's {key}"))
        metrics[name] = float(values)
    if "instructions" not in metrics:
        raise ParseError(f"{path}.Ir: missing (Callgrind's instruction count)")
    return metrics


def _regression(item: Any) -> str:
    """One of gungraun's regressions as it prints it: `Instructions (168 -> 218): +29.76 %
    exceeds limit of +5 %`."""
    if not isinstance(item, dict) or len(item) != 1:
        return json.dumps(item)[:200]
    ((kind, found),) = item.items()
    if not isinstance(found, dict):
        return f"{kind}: {json.dumps(found)[:200]}"
    metric = found.get("metric")
    named_metric = next(iter(metric.values())) if isinstance(metric, dict) and metric else metric
    return (f"{named_metric} ({found.get('old')} -> {found.get('new')}): "
            f"{float(found.get('diff_pct', 'nan')):+.2f} % exceeds {kind.lower()} limit of "
            f"{found.get('limit')} %")
