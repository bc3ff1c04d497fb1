"""A synthetic history of real-looking runs, loaded through the ingest's own bulk path (ids from
the sequences, rows by COPY: `latlab.runs.store`), for the benchmarks at scale and the tests of
reads that must not grow with it.

Trials reuse a few histograms built by latlab's own histogram code, so a million runs load in
minutes; every series carries its history keys exactly as the ingest writes them.
"""

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from latlab.models import Project
from latlab.runs import keys, store
from latlab.runs.histogram import Histogram

SUITE = "http-order"
SCENARIOS = ("small", "medium", "large", "stress")
CLIENTS = ("rust", "go")
HOSTS = ("lab-00", "lab-01")
PARAMS: dict[str, Any] = {"orders": 1000, "connections": 50}
TEMPLATES = 24  # distinct trial histograms the runs are made of
START = datetime(2026, 1, 1, tzinfo=UTC)


def templates(seed: int = 1) -> list[dict[str, Any]]:
    """Trial rows (without ids) built from lognormal samples by latlab's histogram code."""
    rng = np.random.default_rng(seed)
    rows = []
    for index in range(TEMPLATES):
        scale = 350_000 * (1 + 0.02 * (index % 6))
        histogram = Histogram.from_samples(
            rng.lognormal(np.log(scale), 0.3, 20_000).astype(np.int64))
        rows.append({"histogram": Histogram(histogram.counts).to_blob(), "exact": False,
                     **histogram.summary().as_dict()})
    return rows


def load(session: Session, runs: int, *, trials: int = 1, batch: int = 20_000,
         every: timedelta = timedelta(minutes=10), start: datetime = START,
         suite: str = SUITE, clients: tuple[str, ...] = CLIENTS) -> int:
    """Stores `runs` runs of `suite` (a series per client, `trials` trials each) of the default
    project, one every `every` from `start`; returns the first run's id."""
    project_id = session.scalar(select(Project.id).where(Project.slug == "default"))
    assert project_id is not None
    shapes = templates()
    rng = np.random.default_rng(7)
    first = None
    for offset in range(0, runs, batch):
        count = min(batch, runs - offset)
        run_ids = store.reserve_ids(session, "run", count)
        first = first if first is not None else run_ids[0]
        run_rows = [_run(run_id, project_id, offset + i, start + every * (offset + i),
                         trials, suite, len(clients)) for i, run_id in enumerate(run_ids)]
        store.copy_rows(session, "run", store.RUN_COLUMNS, run_rows)
        series_ids = iter(store.reserve_ids(session, "series", count * len(clients)))
        series_rows = [_series(next(series_ids), project_id, run, client, shapes[0])
                       for run in run_rows for client in clients]
        store.copy_rows(session, "series", store.SERIES_COLUMNS, series_rows)
        trial_ids = iter(store.reserve_ids(session, "trial", len(series_rows) * trials))
        store.copy_rows(session, "trial", store.TRIAL_COLUMNS, _trials(
            series_rows, trial_ids, trials, shapes, rng))
    session.execute(text("ANALYZE run; ANALYZE series; ANALYZE trial"))
    assert first is not None
    return int(first)


def _run(run_id: int, project_id: int, index: int, started_at: datetime,
         trials: int, suite: str, series: int) -> dict[str, Any]:
    return {
        "id": run_id, "project_id": project_id, "suite": suite,
        "scenario": SCENARIOS[index % len(SCENARIOS)], "params": PARAMS,
        "started_at": started_at, "finished_at": started_at + timedelta(seconds=12),
        "created_at": started_at, "source_kind": "ci", "commit": f"{index:08x}",
        "branch": "main" if index % 5 else f"feature-{index % 7}",
        "host_name": HOSTS[index % len(HOSTS)], "host_tags": ["bench"],
        "host_fingerprint": {"cpu_model": "bench"}, "verdict": "pass", "verdict_reasons": [],
        "metric_info": {}, "series_count": series, "trial_count": series * trials,
    }


def _series(series_id: int, project_id: int, run: dict[str, Any], client: str,
            shape: dict[str, Any]) -> dict[str, Any]:
    labels = {"client": client}
    label_key = keys.label_key(labels)
    return {
        "id": series_id, "run_id": run["id"], "labels": labels, "label_key": label_key,
        "summary": {k: v for k, v in shape.items() if k not in ("histogram", "exact")},
        "summary_uncorrected": None, "metrics": {"throughput": 100_000.0},
        "history": keys.history(project_id, run["suite"], run["scenario"], label_key),
        "params_key": keys.params_key(run["params"]), "started_at": run["started_at"],
        "branch": run["branch"], "host_name": run["host_name"],
    }


def _trials(series_rows: list[dict[str, Any]], ids: Iterator[int], trials: int,
            shapes: list[dict[str, Any]], rng: np.random.Generator
            ) -> Iterator[dict[str, Any]]:
    for series in series_rows:
        for index in range(trials):
            shape = shapes[int(rng.integers(TEMPLATES))]
            yield {**shape, "id": next(ids), "started_at": series["started_at"],
                   "series_id": series["id"], "index": index,
                   "histogram_uncorrected": None, "summary_uncorrected": None,
                   "metrics": {"throughput": float(rng.normal(1e5, 1e3))},
                   "intervals": None, "tuning": None}
