"""How the commands print: tables and verdicts on standard output, progress and notes on
standard error; values in the units the lab gives them (the contract's `quantity`)."""

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from latlab_contract import reports
from latlab_contract.vocabulary import LATENCY_LABELS, quantity

# Markup off: labels and the lab's messages may hold brackets; lines are never re-wrapped.
out = Console(markup=False, highlight=False, soft_wrap=True)
err = Console(stderr=True, markup=False, highlight=False, soft_wrap=True)
# `latlab --wide`: the width tables are given, whatever the terminal's.
WIDE = 1000

STYLES = {"pass": "green", "fail": "bold red", "inconclusive": "yellow",
          "no-baseline": "cyan", "improved": "green", "regressed": "bold red",
          "unchanged": "dim", "succeeded": "green", "failed": "bold red",
          "cancelled": "yellow", "timed_out": "bold red"}
DASH = "-"


def styled(word: str | None, text: str | None = None) -> Text:
    """A verdict or a status in its colour (`text` instead of the word, when given)."""
    shown = text if text is not None else word or "unjudged"
    return Text(shown, style=STYLES.get(word or "", ""))


def value(number: float | None, unit: str | None) -> str:
    """Nanoseconds in the unit that fits them (1.23 ms); other numbers grouped, with their
    unit (42,260 req/s), counts bare."""
    if number is None:
        return DASH
    if unit == "ns":
        return quantity(number, unit)
    shown = f"{number:,.0f}" if abs(number) >= 1000 else f"{number:.4g}"
    return shown if unit == "count" else f"{shown} {unit or ''}".strip()


def delta(number: float | None, unit: str | None) -> str:
    return DASH if number is None else ("+" if number > 0 else "") + value(number, unit)


def percent(number: float | None) -> str:
    return DASH if number is None else f"{number:+.1f} %"


def labels_text(labels: dict[str, Any]) -> str:
    return reports.series_name(labels)


def metric_name(metric: str, label: str | None = None) -> str:
    return label or LATENCY_LABELS.get(metric, metric)


def moment(text: str | None) -> str:
    """An API timestamp to the minute, as people scan a list: 2026-11-22 12:00."""
    return DASH if not text else text[:16].replace("T", " ")


def source_text(source: dict[str, Any]) -> str:
    """Where a run came from: "ci main@9f1c2e7", "job faf737e5db"."""
    commit = (source.get("commit") or "")[:10]
    branch = source.get("branch") or ""
    built = f"{branch}@{commit}" if branch and commit else branch or commit
    return f"{source.get('kind', '')} {built}".strip()


def verdict_lines(run: dict[str, Any], page: str) -> None:
    """The run's verdict, why, and what it was judged against."""
    line = Text("verdict: ").append_text(styled(run.get("verdict")))
    if run.get("confirmation"):
        line.append(f" (confirmation {run['confirmation']})")
    out.print(line)
    for reason in run.get("verdict_reasons", []):
        out.print(f"  {reports.reason_line(reason)}")
    for note in (run.get("harness") or {}).get("notes", []):
        out.print(f"note: {note}")
    if run.get("baseline_run_id") is not None and not run.get("gate_evidence"):
        out.print(f"baseline: run {run['baseline_run_id']} "
                  f"(latlab compare {run['baseline_run_id']} {run['id']})")
    out.print(page)


def write_report(path: Path, text: str) -> None:
    """A report file (`--summary`, `--junit`), its folder made when missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
