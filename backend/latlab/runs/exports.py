"""A run taken out again: a trial as an HdrHistogram log, a run's summary as CSV."""

import base64
import csv
import io
import json
from typing import Any

from latlab.core.errors import (
    Gone,
    NotFound,
)
from latlab.models import Run, Series
from latlab_contract.vocabulary import SUMMARY_PERCENTILES


def trial_hlog(run: Run, series: Series, index: int) -> str:
    """A trial as an HdrHistogram interval log (format 1.3, values in ns): one line per
    interval when every interval kept its histogram, else one line for the whole trial."""
    trial = next((t for t in series.trials if t.index == index), None)
    if trial is None:
        raise NotFound(f"series {series.id} has no trial {index}")
    if trial.histogram is None:
        raise Gone(f"the histogram of trial {index} of series {series.id} was retired by the "
                   f"project's retention; its summary remains")
    started = run.started_at.timestamp()
    lines = [
        "#[Histogram log format version 1.3]",
        f"#[latlab run {run.id} {run.suite}/{run.scenario}, series {series.id} "
        f"{json.dumps(series.labels)}, trial {index}; values in nanoseconds]",
        f"#[StartTime: {started:.3f} (seconds since epoch), {run.started_at.isoformat()}]",
        '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"',
    ]
    intervals = trial.intervals or []
    if intervals and all("hdr" in i for i in intervals):
        for position, interval in enumerate(intervals):
            following = intervals[position + 1]["t_s"] if position + 1 < len(intervals) else None
            length = interval.get("length_s", 0.0 if following is None
                                  else following - interval["t_s"])
            lines.append(_hlog_line(interval["t_s"], length, interval.get("max", 0.0),
                                    interval["hdr"]))
    else:
        length = (0.0 if run.finished_at is None
                  else (run.finished_at - run.started_at).total_seconds())
        lines.append(_hlog_line(0.0, length, trial.max,
                                base64.b64encode(trial.histogram).decode()))
    return "\n".join(lines) + "\n"


def run_csv(run: Run) -> str:
    """A run's summary as CSV: per series its merged row (`trial` = all) then one row per
    trial; latency in ns, each label and metric in its own column."""
    label_keys = sorted({key for series in run.series for key in series.labels})
    metric_names = sorted({name for series in run.series for t in series.trials
                           for name in t.metrics})
    latency = ["count", "min", *SUMMARY_PERCENTILES, "max", "mean", "stddev"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["run_id", "series_id", *label_keys, "trial",
                     *(f"{key}_ns" if key != "count" else key for key in latency),
                     *metric_names])
    for series in run.series:
        rows: list[tuple[str, dict[str, Any], dict[str, float]]] = [
            ("all", series.summary, series.metrics)]
        rows += [(str(t.index), {key: getattr(t, key) for key in latency}, t.metrics)
                 for t in series.trials]
        for trial, summary, metrics in rows:
            writer.writerow([run.id, series.id, *(series.labels.get(k, "") for k in label_keys),
                             trial, *(summary.get(key, "") for key in latency),
                             *(metrics.get(name, "") for name in metric_names)])
    return buffer.getvalue()


def _hlog_line(start_s: float, length_s: float, max_ns: float, encoded: str) -> str:
    # Interval_Max is written in ms (HdrHistogram's default max value unit ratio, 1e6).
    return f"{start_s:.3f},{length_s:.3f},{max_ns / 1e6:.3f},{encoded}"
