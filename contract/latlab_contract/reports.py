"""Comparisons and CI verdicts as the formats CI and people open: a Markdown table (a CI
step summary, a pull request comment), CSV (a spreadsheet) and JUnit XML (CI systems that
show test results).

Pure functions over the JSON shapes of the api (`GET /compare`, `POST /runs`), so the api
(`GET /compare?format=`) and `latlab submit --summary/--junit` render them alike.
"""

import csv
import io
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from xml.etree import ElementTree

from latlab_contract.vocabulary import quantity

_MARKS = {"regressed": "🔴", "improved": "🟢", "unchanged": "⚪", "inconclusive": "🟡"}


@dataclass(frozen=True)
class Row:
    """One series' metric: both sides, the change, the verdict, and whether it fails a gate."""

    labels: dict[str, Any]
    metric: str
    unit: str
    baseline: float | None
    candidate: float | None
    delta: float | None
    delta_pct: float | None
    verdict: str
    evidence: str = ""
    failed: bool = False
    doubted: bool = False  # the gate could not settle it (too few trials)
    link: str | None = None
    note: str = ""  # shown with the verdict: what the gate could see

    @property
    def series(self) -> str:
        return series_name(self.labels)


def series_name(labels: dict[str, Any]) -> str:
    return ", ".join(f"{key}={value}" for key, value in sorted(labels.items())) or "(all)"


def reason_line(reason: dict[str, Any]) -> str:
    """A verdict's reason on one line: `kind: series / metric: message` (the metric left out
    where the reason is about the whole series)."""
    if not reason["series"] and not reason.get("metric"):  # about the whole run (a try's stages)
        return f"{reason['kind']}: {reason['message']}"
    metric = f" / {reason['metric']}" if reason.get("metric") else ""
    return f"{reason['kind']}: {series_name(reason['series'])}{metric}: {reason['message']}"


def compare_rows(compare: dict[str, Any], *, metrics: Collection[str] | None = None,
                 link: str | None = None) -> list[Row]:
    """Rows of a `GET /compare` answer; only `metrics` when given, in the answer's order."""
    return [
        Row(labels=series["labels"], metric=m["metric"], unit=m["unit"],
            baseline=m["baseline"], candidate=m["candidate"], delta=m["delta"],
            delta_pct=m["delta_pct"], verdict=m["verdict"], evidence=m["evidence"], link=link)
        for series in compare["series"] for m in series["metrics"]
        if metrics is None or m["metric"] in metrics
    ]


def gate_rows(submitted: dict[str, Any], compare: dict[str, Any] | None) -> list[Row]:
    """The CI gate of a `POST /runs` answer: every reliable gated metric of every matched
    series (failed when the gate found a regression, doubted when its trials could not
    settle a change), then the reasons that are rows of their own (`reason_rows`)."""
    reasons = submitted.get("reasons", [])
    by_key = {(series_name(r["series"]), r["metric"]): r for r in reasons
              if r["kind"] not in _OWN_ROWS}
    link = submitted.get("compare_url")
    rows = []
    if compare is not None:
        gated = set(submitted.get("gated_metrics", []))
        for series in compare["series"]:
            reliable = [m for m in series["metrics"] if m["metric"] in gated and m["reliable"]]
            for row in compare_rows({"series": [{**series, "metrics": reliable}]}, link=link):
                reason = by_key.get((row.series, row.metric))
                if reason is None:
                    rows.append(row)
                elif reason["kind"] == "regression":
                    rows.append(_with(row, failed=True, evidence=reason["message"]))
                else:
                    rows.append(_with(row, doubted=True, evidence=reason["message"]))
    return rows + reason_rows(submitted)


# Reasons that are rows of their own (not a gated metric's comparison): failed, or skipped.
_OWN_ROWS = {"sla": True, "errors": True, "not-compared": False, "failures": False}


def reason_rows(submitted: dict[str, Any]) -> list[Row]:
    """A `POST /runs` answer's reasons that are no comparison of a gated metric: SLA breaches
    and failed operations past the project's rate (failed), series or metrics the gate could
    not compare and failures within the rate (skipped, with the reason)."""
    return [Row(labels=reason["series"], metric=reason["metric"] or "series", unit="",
                baseline=None, candidate=reason.get("value"), delta=None, delta_pct=None,
                verdict=reason["kind"], evidence=reason["message"],
                failed=_OWN_ROWS[reason["kind"]], doubted=not _OWN_ROWS[reason["kind"]],
                link=submitted.get("url"))
            for reason in submitted.get("reasons", []) if reason["kind"] in _OWN_ROWS]


def evidence_rows(submitted: dict[str, Any]) -> list[Row]:
    """The gate of a `POST /runs` answer judged against history: each judged metric against
    its window's centre, failed when it regressed, with the smallest change the window lets
    the gate see; then the reasons that are rows of their own (`reason_rows`)."""
    rows = []
    for item in submitted.get("gate_evidence", []):
        centre, value = item["centre"], item["value"]
        smallest = item["smallest_change"]
        rows.append(Row(
            labels=item["series"], metric=item["metric"], unit=item["unit"], baseline=centre,
            candidate=value, delta=value - centre,
            delta_pct=None if centre == 0 else 100 * (value / centre - 1),
            verdict={"regressed": "regressed", "improved": "improved"}.get(
                item["outcome"], "unchanged"),
            evidence=item["message"], failed=item["outcome"] == "regressed",
            link=submitted.get("url"),
            note=f"window of {item['window']['runs']} runs; sees "
                 + ", ".join(f"{100 * v:.1f} % ({k})" for k, v in smallest.items())))
    return rows + reason_rows(submitted)


def try_rows(run: dict[str, Any], link: str | None = None) -> list[Row]:
    """A try job's run (`GET /runs/{id}`): each gate metric of each series, head against
    base as its reason says (failed when it regressed, doubted when its trials could not
    settle a change), with the change's 95 % interval and the smallest change the job could
    see; then the reasons that are rows of their own (`reason_rows`). `link`: the two sides'
    comparison."""
    info = run.get("metric_info", {})
    rows = []
    for reason in run["verdict_reasons"]:
        if reason["kind"] in _OWN_ROWS or reason["kind"] == "stages":  # said in its line
            continue
        base, head = reason.get("baseline"), reason.get("candidate")
        changed = base is not None and head is not None
        interval, seen = reason.get("interval"), reason.get("detectable")
        notes = ([f"95 % interval {100 * interval[0]:+.1f} % to {100 * interval[1]:+.1f} %"]
                 if interval else [])
        notes += [f"could see {100 * seen:.1f} %"] if seen is not None else []
        rows.append(Row(
            labels=reason["series"], metric=reason["metric"],
            unit=info.get(reason["metric"], {}).get("unit", ""), baseline=base,
            candidate=head, delta=head - base if changed else None,
            delta_pct=100 * (head / base - 1) if changed and base else None,
            verdict=reason.get("outcome") or "inconclusive", evidence=reason["message"],
            failed=reason["kind"] == "regression",
            doubted=reason["kind"] not in ("try", "regression"),
            link=link, note="; ".join(notes)))
    return rows + reason_rows({"reasons": run["verdict_reasons"], "url": link})


def run_rows(run: dict[str, Any], metrics: Collection[str]) -> list[Row]:
    """Rows of a run that has nothing to be compared with (`GET /runs/{id}`): each series'
    value of each of `metrics`, as its first entry in a history."""
    info = run.get("metric_info", {})
    rows = []
    for series in run["series"]:
        values = {**series["summary"], **series["metrics"]}
        for metric in metrics:
            if metric in values:
                rows.append(Row(labels=series["labels"], metric=metric,
                                unit=info.get(metric, {}).get("unit", ""), baseline=None,
                                candidate=values[metric], delta=None, delta_pct=None,
                                verdict="first", link=run.get("url")))
    return rows


def markdown(rows: Iterable[Row], *, title: str, lines: Iterable[str] = ()) -> str:
    """A heading, some lines, and the rows as a GitHub-flavoured Markdown table."""
    out = [f"### {_escape(title)}", "", *lines]
    listed = list(rows)
    if listed:
        out += ["", "| series | metric | baseline | candidate | delta | verdict | details |",
                "| --- | --- | ---: | ---: | ---: | --- | --- |"]
        for row in listed:
            verdict = _escape(f"{_MARKS.get(row.verdict, '')} {row.verdict}".strip())
            cells = [_escape(cell) for cell in (
                row.series, row.metric, _value(row.baseline, row.unit),
                _value(row.candidate, row.unit), _delta(row))]
            gate = "**fail**: " if row.failed else "**inconclusive**: " if row.doubted else ""
            cells.append(gate + verdict + (f" ({_escape(row.note)})" if row.note else ""))
            cells.append(f"[compare]({row.link})" if row.link else "")
            out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def csv_text(rows: Iterable[Row]) -> str:
    """One line per row: each label in its own column, values in the metric's unit."""
    listed = list(rows)
    label_keys = sorted({key for row in listed for key in row.labels})
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*label_keys, "metric", "unit", "baseline", "candidate", "delta",
                     "delta_pct", "verdict", "evidence"])
    for row in listed:
        writer.writerow([*(row.labels.get(key, "") for key in label_keys), row.metric, row.unit,
                         _number(row.baseline), _number(row.candidate), _number(row.delta),
                         _number(row.delta_pct), row.verdict, row.evidence])
    return buffer.getvalue()


def junit(rows: Iterable[Row], *, name: str, timestamp: datetime, properties: dict[str, str],
          skipped: str | None = None) -> str:
    """The gate as one JUnit test suite: a test case per row, failed when the row fails,
    skipped when the gate could not settle it; with no rows to judge, one skipped case says
    why (`skipped`)."""
    listed = list(rows)
    suite = ElementTree.Element("testsuite", {
        "name": name, "timestamp": timestamp.strftime("%Y-%m-%dT%H:%M:%S"),
        "hostname": "latlab", "tests": str(len(listed) or 1),
        "failures": str(sum(row.failed for row in listed)), "errors": "0",
        "skipped": str(sum(row.doubted for row in listed) if listed else 1), "time": "0"})
    holder = ElementTree.SubElement(suite, "properties")
    for key, value in properties.items():
        ElementTree.SubElement(holder, "property", {"name": key, "value": value})
    for row in listed:
        case = ElementTree.SubElement(suite, "testcase", {
            "name": f"{row.metric} [{row.series}]", "classname": name, "time": "0"})
        if row.failed:
            failure = ElementTree.SubElement(case, "failure", {
                "type": row.verdict, "message": f"{row.metric} {_delta(row)} ({row.verdict})"})
            failure.text = row.evidence
        elif row.doubted:
            ElementTree.SubElement(case, "skipped", {"message": row.evidence})
    if not listed:
        case = ElementTree.SubElement(suite, "testcase",
                                      {"name": "comparison", "classname": name, "time": "0"})
        ElementTree.SubElement(case, "skipped", {"message": skipped or "nothing to judge"})
    ElementTree.SubElement(suite, "system-out").text = "\n".join(
        f"{key}: {value}" for key, value in properties.items())
    ElementTree.SubElement(suite, "system-err")
    ElementTree.indent(suite)
    return ElementTree.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


def _with(row: Row, **changes: Any) -> Row:
    return Row(**{**row.__dict__, **changes})


def _value(value: float | None, unit: str) -> str:
    return "" if value is None else quantity(value, unit)


def _delta(row: Row) -> str:
    if row.delta_pct is not None:
        return f"{row.delta_pct:+.1f} %"
    return "" if row.delta is None else _value(row.delta, row.unit)


def _number(value: float | None) -> str:
    return "" if value is None else repr(value)


def _escape(text: str) -> str:
    """Text as a table cell that renders as itself: Markdown's punctuation escaped."""
    return re.sub(r"([\\`*_\[\]<>|#])", r"\\\1", text.replace("\n", " "))
