"""The API's answers as terminal tables: a run's series, a list of runs, a comparison, a
trend. Verdicts and units are the lab's own, shown as they come."""

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from latlab_cli.output import (
    DASH,
    delta,
    labels_text,
    metric_name,
    moment,
    out,
    percent,
    source_text,
    styled,
    value,
)

LATENCY_COLUMNS = ("p50", "p90", "p99", "p999", "max")
HEADLINE = "throughput"
ALARMS = ("errors", "timeouts")  # shown when not zero
UNRELIABLE = "* fewer than 10 samples beyond it: not a number to trust"
SPARKS = "▁▂▃▄▅▆▇█"


# Columns that may wrap at a narrow terminal: labels and sentences, never numbers or verdicts.
WRAPPING = ("evidence", "change point", "suite", "scenario", "host", "source")


def fitted(table: Table, droppable: Sequence[str]) -> Table:
    """`table` as the terminal can show it whole: numbers and verdicts never cut (rich would
    shorten them to "149,…" and "inco…"), labels wrapped, and when it is still too wide the
    `droppable` columns left out in that order, said in its caption with how to see them."""
    for column in table.columns:
        wrapping = str(column.header) in WRAPPING or (
            column.justify == "left" and column is table.columns[0])
        column.no_wrap = not wrapping
        column.overflow = "fold"
    left_out = []
    for header in droppable:
        if _needed(table) <= out.width:
            break
        table.columns = [c for c in table.columns if str(c.header) != header]
        left_out.append(header)
    if left_out:
        note = (f"left out at {out.width} columns: {', '.join(left_out)} (latlab --wide, or "
                "a wider terminal, shows them)")
        table.caption = f"{table.caption}\n{note}" if table.caption else note
    return table


def _needed(table: Table) -> int:
    """The width `table` needs with no cell cut: a wrapping column its longest word, any other
    its longest cell; one space each side of a cell and a border between columns and at both
    ends."""
    options = out.options
    return len(table.columns) + 1 + sum(
        2 + max(Measurement.get(out, options, cell).minimum if not column.no_wrap
                else Measurement.get(out, options, cell).maximum
                for cell in (column.header, *column.cells))
        for column in table.columns)


def run_table(run: dict[str, Any], every_metric: bool = False) -> Table:
    """One row per series: samples, latency percentiles, throughput, and errors or timeouts
    when there were any (`every_metric`: all the run's metrics); labels every series shares
    go in the title, once."""
    series = run["series"]
    keys = sorted({key for s in series for key in s["labels"]})
    constant = {key: series[0]["labels"].get(key) for key in keys
                if len({s["labels"].get(key) for s in series}) == 1}
    varying = [key for key in keys if key not in constant]
    info = run.get("metric_info", {})
    metrics = [name for name in dict.fromkeys(m for s in series for m in s["metrics"])
               if (every_metric and name != "count") or name == HEADLINE
               or (name in ALARMS and any(s["metrics"][name] for s in series
                                          if name in s["metrics"]))]
    table = Table(title=f"every series: {labels_text(constant)}" if constant else None,
                  title_justify="left")
    for key in varying:
        table.add_column(key)
    table.add_column("samples", justify="right")
    for key in LATENCY_COLUMNS:
        table.add_column(metric_name(key), justify="right")
    for name in metrics:
        table.add_column(metric_name(name, info.get(name, {}).get("label")), justify="right")
    doubtful = False
    for s in series:
        unreliable = set(s.get("unreliable", []))
        doubtful |= bool(unreliable & set(LATENCY_COLUMNS))
        table.add_row(
            *[str(s["labels"].get(key, DASH)) for key in varying],
            f"{int(s['summary']['count']):,}",
            *[value(s["summary"].get(key), "ns") + ("*" if key in unreliable else "")
              for key in LATENCY_COLUMNS],
            *[value(s["metrics"].get(name), info.get(name, {}).get("unit"))
              for name in metrics])
    if doubtful:
        table.caption = UNRELIABLE
    return fitted(table, ["P90", "max", "P99.9", "samples",
                          *(metric_name(n, info.get(n, {}).get("label")) for n in metrics)])


def runs_table(page: dict[str, Any]) -> Table:
    table = Table(title=f"{len(page['items'])} of {page['total']:,}"
                  f"{'+' if page.get('total_capped') else ''} runs, newest first",
                  title_justify="left")
    for column in ("run", "started", "suite", "scenario", "source", "host", "verdict"):
        table.add_column(column, justify="right" if column == "run" else "left")
    for column in ("series", "P99", "throughput"):
        table.add_column(column, justify="right")
    for run in page["items"]:
        headline = run.get("headline") or {}
        table.add_row(str(run["id"]), moment(run["started_at"]), run["suite"], run["scenario"],
                      source_text(run["source"]), run.get("host_name") or DASH,
                      styled(run.get("verdict")), str(run["series_count"]),
                      value(headline.get("p99"), "ns"),
                      value(headline.get("throughput"), "req/s"))
    return fitted(table, ["source", "host", "series", "scenario", "throughput", "started"])


# A series' place in a comparison: by its gravest verdict, then by its largest change of it.
_GRAVITY = {"regressed": 0, "improved": 1, "inconclusive": 2, "unchanged": 3}
CHANGED = ("regressed", "improved")


def _gravity(series: dict[str, Any]) -> tuple[int, float]:
    metrics = series["metrics"]
    grave = min((_GRAVITY.get(m["verdict"], 3) for m in metrics), default=3)
    largest = max((abs(m["delta_pct"]) for m in metrics if m["delta_pct"] is not None
                   and _GRAVITY.get(m["verdict"], 3) == grave), default=0.0)
    return grave, -largest


def print_compare(compare: dict[str, Any], evidence: bool, everything: bool = False) -> None:
    """The series that changed (regressed, then improved; the largest change first) with
    their metrics and the lab's verdicts, or every series (`everything`); then the verdicts
    counted as the dashboard's compare page counts them, and each regression by name."""
    for side in ("baseline", "candidate"):
        ref = compare[side]
        selector = compare.get(f"{side}_labels") or {}
        out.print(f"{side:<9}  run {ref['id']}  {ref['suite']}/{ref['scenario']}  "
                  f"{source_text({'kind': '', **ref})}  {ref.get('host_name') or ''}  "
                  f"{moment(ref['started_at'])}"
                  + (f"  series {labels_text(selector)}" if selector else ""))
    ordered = sorted(compare["series"], key=_gravity)
    shown = ordered if everything else [
        s for s in ordered if any(m["verdict"] in CHANGED for m in s["metrics"])]
    for series in shown:
        table = Table(title=labels_text(series["labels"]), title_justify="left")
        for column in ("metric", "baseline", "candidate", "change", "change %", "verdict",
                       *(["evidence"] if evidence else [])):
            table.add_column(column, justify="right" if column not in (
                "metric", "verdict", "evidence") else "left")
        doubtful = False
        said = Counter(m["label"] for m in series["metrics"])
        for m in series["metrics"]:
            doubtful |= not m["reliable"]
            # Two metrics of one label (each program's CPU time) are told apart by name.
            name = m["label"] if said[m["label"]] == 1 else f"{m['label']} ({m['metric']})"
            table.add_row(name + ("" if m["reliable"] else "*"),
                          value(m["baseline"], m["unit"]), value(m["candidate"], m["unit"]),
                          delta(m["delta"], m["unit"]), percent(m["delta_pct"]),
                          styled(m["verdict"]), *([m["evidence"]] if evidence else []))
        table.caption = UNRELIABLE if doubtful else None
        out.print(fitted(table, ["evidence", "change", "baseline"]))
    for side in ("baseline", "candidate"):
        for labels in compare[f"unmatched_{side}"]:
            out.print(f"only in the {side}: {labels_text(labels)}")
    for warning in compare["warnings"]:
        out.print(Text(f"warning: {warning}", style="yellow"))
    if len(shown) < len(ordered):
        out.print(f"{len(ordered) - len(shown)} of {len(ordered)} series without a "
                  f"significant change not shown (--all shows every series)")
    out.print(Text("overall: ").append_text(headline(compare)))
    for series in ordered:
        for m in series["metrics"]:
            if m["verdict"] == "regressed":
                out.print(Text("  regressed: ", style="red").append(
                    f"{labels_text(series['labels'])} {m['label']} {percent(m['delta_pct'])}"))


def headline(compare: dict[str, Any]) -> Text:
    """"1 regressed, 2 improved", or "no significant change"; nothing compared says so."""
    if not compare["series"]:
        return Text("no series in common: nothing compared", style="yellow")
    counts = Counter(m["verdict"] for s in compare["series"] for m in s["metrics"])
    line = Text()
    for verdict in ("regressed", "improved", "inconclusive"):
        if counts[verdict]:
            line.append(", " if line else "").append(
                styled(verdict, f"{counts[verdict]} {verdict}"))
    return line or Text("no significant change")


def print_trend(trend: dict[str, Any]) -> None:
    """The history's points oldest first, a sparkline, change points where they start, and
    the window the latest run is judged against; other params and branches say how to draw
    them."""
    unit = trend["unit"]
    points = trend["points"]
    out.print(f"{trend['suite']}/{trend['scenario']} · {labels_text(trend['labels'])} · "
              f"{metric_name(trend['metric'])} ({trend['direction']} is better) · "
              f"branch {trend['branch']} · params {json.dumps(trend['params'], sort_keys=True)}")
    if not points:
        out.print("no runs in this history")
        return
    values = [p["value"] for p in points]
    out.print(f"{sparkline(values)}  {value(values[0], unit)} → {value(values[-1], unit)}")
    starts = {c["index"]: c for c in trend["change_points"]}
    steps = "days" if trend["resolution"] == "day" else "runs"
    table = Table(title=f"the last {len(points)} {steps}", title_justify="left")
    for column in ("run", "started", "commit", "host", metric_name(trend["metric"]),
                   "vs previous", "change point"):
        table.add_column(column, justify="right" if column in ("run", "vs previous") else "left")
    for index, point in enumerate(points):
        previous = points[index - 1]["value"] if index else None
        change = starts.get(index)
        table.add_row(
            str(point["run_id"] or f"{point['runs']} runs"), moment(point["started_at"]),
            (point.get("commit") or DASH)[:10], point.get("host_name") or DASH,
            value(point["value"], unit),
            percent(None if not previous else 100 * (point["value"] / previous - 1)),
            "" if change is None else f"{percent(change['delta_pct'])} "
            f"({value(change['before'], unit)} → {value(change['after'], unit)}, "
            f"p = {change['p_value']:.2g})")
    out.print(fitted(table, ["host", "started", "commit"]))
    if trend.get("window"):
        out.print(f"latest run {trend['window']['run_id']}: "
                  f"{trend['window']['evidence']['message']}")
    others = [p for p in trend["params_sets"] if not p["drawn"]]
    for other in others:
        out.print(f"other params ({other['runs']} runs, last run {other['last_run_id']}): "
                  f"--params '{json.dumps(other['params'], sort_keys=True)}'")
    branches = [b["name"] for b in trend["branches"] if b["name"] != trend["branch"]]
    if branches:
        out.print(f"other branches: {', '.join(branches)} (--branch NAME)")


def sparkline(values: list[float]) -> str:
    low, high = min(values), max(values)
    span = high - low
    return "".join(SPARKS[0 if span == 0 else round((v - low) / span * (len(SPARKS) - 1))]
                   for v in values)
