"""What a run is compared with: the pinned baseline of its branch (else of main), else the
latest comparable run of main the gate passed; and the identity of a series over time."""

import dataclasses
import hashlib
import json
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import or_, select, union_all
from sqlalchemy.orm import Session

from latlab.analysis import changepoints
from latlab.core.cache import memo
from latlab.core.clock import get_clock
from latlab.core.errors import NotFound
from latlab.models import Baseline, Run, Series, Trial
from latlab.runs import keys
from latlab.runs.service import DEFAULT_BRANCH, load_run, on_default_branch
from latlab.suites import service as suite_service
from latlab_contract.vocabulary import LATENCY_KEYS


def host_class(run: Run) -> str:
    """What makes two hosts' numbers comparable: CPU model, cores and tags."""
    return _class_of(run.host_fingerprint, run.host_tags)


def history_key(run: Run, labels: dict[str, Any]) -> str:
    """What must match for two series to be comparable over time."""
    parts = [run.project_id, run.suite, run.scenario, run.params, labels, host_class(run)]
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def resolve_baseline(session: Session, run: Run) -> Run | None:
    """The pinned baseline of the run's branch (else of main); else the latest run of main
    the gate did not fail, with the same params, on a host of the same class."""
    pinned = pinned_baseline(session, run)
    if pinned is not None:
        return pinned
    candidates = session.scalars(
        select(Run).where(
            Run.project_id == run.project_id, Run.suite == run.suite,
            Run.scenario == run.scenario, on_default_branch(), Run.id < run.id,
            # Not a run that failed. An inconclusive one may be (were it left out, the
            # baseline would be chosen from the fast side of the noise: slower runs are
            # inconclusive more often than faster ones).
            or_(Run.verdict.is_(None), Run.verdict != "fail"),
            Run.confirms_run_id.is_(None),
        ).order_by(Run.id.desc()).limit(50)
    )
    omitted = suite_service.omitted_params(session, run.suite)
    for candidate in candidates:
        if host_class(candidate) == host_class(run) and keys.params_key(
                candidate.params, omitted) == keys.params_key(run.params, omitted):
            return load_run(session, candidate.id)
    return None


def pinned_baseline(session: Session, run: Run) -> Run | None:
    """The run pinned as the baseline of the run's branch, else of main."""
    for branch in dict.fromkeys([run.branch or DEFAULT_BRANCH, DEFAULT_BRANCH]):
        pinned = session.scalar(select(Baseline.run_id).where(
            Baseline.project_id == run.project_id, Baseline.suite == run.suite,
            Baseline.scenario == run.scenario, Baseline.branch == branch))
        if pinned is not None and pinned != run.id:
            return load_run(session, pinned)
    return None


def pin_baseline(session: Session, run: Run, branch: str | None,
                 pinned_by_id: int | None) -> Baseline:
    branch = branch or run.branch or DEFAULT_BRANCH
    pinned = session.scalar(select(Baseline).where(
        Baseline.project_id == run.project_id, Baseline.suite == run.suite,
        Baseline.scenario == run.scenario, Baseline.branch == branch))
    if pinned is None:
        pinned = Baseline(project_id=run.project_id, suite=run.suite, scenario=run.scenario,
                          branch=branch, run_id=run.id, pinned_by_id=pinned_by_id,
                          created_at=get_clock().now())
        session.add(pinned)
    else:
        pinned.run_id = run.id
        pinned.pinned_by_id = pinned_by_id
        pinned.created_at = get_clock().now()
    session.flush()
    return pinned


def list_baselines(session: Session, project_id: int) -> list[Baseline]:
    return list(session.scalars(select(Baseline).where(Baseline.project_id == project_id)
                                .order_by(Baseline.id)))


def get_baseline(session: Session, project_id: int, baseline_id: int) -> Baseline:
    pinned = session.scalar(select(Baseline).where(Baseline.id == baseline_id,
                                                   Baseline.project_id == project_id))
    if pinned is None:
        raise NotFound(f"no baseline {baseline_id}")
    return pinned


@dataclass(frozen=True)
class HistoryRun:
    """One run of a window: its id, commit, start and its trials' values of one metric."""

    run_id: int
    commit: str | None
    started_at: datetime
    values: list[float]


def history_windows(session: Session, run: Run, metrics: Sequence[str], size: int, *,
                    branch: str = DEFAULT_BRANCH, until: datetime | None = None,
                    label_key: str | None = None
                    ) -> dict[tuple[str, str], list[HistoryRun]]:
    """For each series of `run` (or the one of `label_key`) and each metric, the window it is
    judged against: the last `size` runs of its history (same history and params keys) on
    `branch` before it (or up to `until`, a start point) on hosts of its class, after the
    history's latest change point, oldest first. Every run counts, whatever its verdict: a
    window chosen by verdicts would ratchet towards lucky runs. Keyed by (the series' label
    key, metric). Each history is read as its own index range (newest first, `_LOOKBACK`
    windows deep), so the read costs the same however long the histories grow."""
    mine = {(s.history, s.params_key): s.label_key for s in run.series
            if s.history and label_key in (None, s.label_key)}
    if not mine:
        return {}
    cutoff = until if until is not None else run.started_at
    ranges = [
        select(Series.id, Series.history, Series.params_key, Series.started_at, Run.id,
               Run.commit, Run.host_fingerprint, Run.host_tags)
        .join(Run, Run.id == Series.run_id)
        .where(Series.history == history, Series.params_key == params_key,
               on_default_branch(Series.branch) if branch == DEFAULT_BRANCH
               else Series.branch == branch,
               Series.started_at <= cutoff, Series.run_id != run.id)
        .order_by(Series.started_at.desc(), Series.id.desc())
        .limit(_LOOKBACK * size)
        for history, params_key in mine]
    rows = sorted(session.execute(ranges[0] if len(ranges) == 1 else union_all(*ranges)),
                  key=lambda row: (row[3], row[0]), reverse=True)  # newest first
    wanted = host_class(run)
    chosen: dict[tuple[str, str], list[Any]] = {}
    for row in rows:
        key = (row[1], row[2])
        if key in mine and len(chosen.setdefault(key, [])) < _LOOKBACK * size and (
                _class_of(row[6], row[7]) == wanted):
            chosen[key].append(row)
    picked = [row for kept in chosen.values() for row in kept]
    values = _trial_values(session, [row[0] for row in picked], metrics,
                           (min((row[3] for row in picked), default=cutoff), cutoff))
    windows: dict[tuple[str, str], list[HistoryRun]] = {}
    for key, kept in chosen.items():
        for metric in metrics:
            history = [HistoryRun(row[4], row[5], row[3], values.get((row[0], metric), []))
                       for row in reversed(kept)]
            history = [item for item in history if item.values]
            windows[(mine[key], metric)] = _since_last_change(history)[-size:]
    return windows


# A window looks this many times its size back, to find the history's latest change point
# and runs on hosts of its class.
_LOOKBACK = 3


def _class_of(fingerprint: dict[str, Any], tags: list[str]) -> str:
    return "|".join([str(fingerprint.get("cpu_model", "")), str(fingerprint.get("cores", "")),
                     ",".join(sorted(tags))])


def _trial_values(session: Session, series_ids: list[int], metrics: Sequence[str],
                  span: tuple[datetime, datetime]) -> dict[tuple[int, str], list[float]]:
    """Each series' trial values of each metric (latency keys from their columns); `span`
    bounds their runs' starts, so Postgres reads only those months' partitions."""
    if not series_ids:
        return {}
    found: dict[tuple[int, str], list[float]] = {}
    for series_id, metrics_of_trial, *columns in session.execute(
            select(Trial.series_id, Trial.metrics, *(getattr(Trial, m) for m in metrics
                                                      if m in LATENCY_KEYS))
            .where(Trial.series_id.in_(series_ids), Trial.started_at >= span[0],
                   Trial.started_at <= span[1], Trial.disturbed.is_(None))):
        latency = dict(zip([m for m in metrics if m in LATENCY_KEYS], columns, strict=True))
        for metric in metrics:
            value = latency.get(metric, (metrics_of_trial or {}).get(metric))
            if value is not None:
                found.setdefault((series_id, metric), []).append(float(value))
    return found


def _since_last_change(history: list[HistoryRun]) -> list[HistoryRun]:
    """The runs after the latest change point of their values (the median of each run's
    trials): a window does not mix the levels before and after a change."""
    points = change_points([statistics.median(item.values) for item in history])
    return history[points[-1].index:] if points else history


def change_points(values: list[float]) -> list[changepoints.ChangePoint]:
    """E-Divisive change points of a history, remembered by its values: the ingest worker
    finds them for each new run (its window, its trend), so the dashboard's trends and the
    windows they show read them at once."""
    digest = hashlib.sha256(json.dumps(values).encode()).hexdigest()
    found = memo(f"latlab:change-points:v1:{digest}",
                 lambda: [dataclasses.asdict(c) for c in changepoints.detect(values)])
    return [changepoints.ChangePoint(**c) for c in found]
