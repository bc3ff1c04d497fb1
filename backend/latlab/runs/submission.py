"""A run coming in: the result contract read from a submission's bytes (raw samples straight
into arrays, `runs.samples`) or from a harness's output (in a reader process,
`core.isolation`), every histogram and summary built before anything is written, then the run,
its series and trials stored with COPY (`runs.store`). Judging it is `ingest.service`'s."""

import json
import statistics
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

import numpy as np
from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from latlab.core import isolation
from latlab.core.clock import get_clock
from latlab.core.errors import (
    Conflict,
    PayloadTooLarge,
    ServiceUnavailable,
    Unprocessable,
)
from latlab.core.settings import get_settings
from latlab.core.validation import parse_body, strict_json
from latlab.models import Host, Project, Run
from latlab.runs import keys, profiles, samples, store
from latlab.runs.histogram import Histogram, Summary
from latlab.runs.keys import label_key
from latlab.suites import service as suite_service
from latlab_contract import parsers
from latlab_contract.latency import Interval, Latency
from latlab_contract.result import RunCreate, SeriesIn, SourceIn


@dataclass(frozen=True)
class Submission:
    run: Run
    replayed: bool


@dataclass(frozen=True)
class AdapterQuery:
    """A submission in a benchmark harness's own format: which adapter reads the body, and
    what the run is (the harness output does not say)."""

    adapter: str
    suite: str
    scenario: str
    source: SourceIn
    started_at: datetime | None
    latency_unit: str
    # What the user asked the gate to judge in place of the harness's headline, and whether
    # the run is meant to fail some operations.
    gate: tuple[str, ...] = ()
    errors_expected: bool = False

    def canonical(self) -> str:
        """The query as text, hashed with the body for idempotency."""
        return json.dumps([self.adapter, self.suite, self.scenario,
                           self.source.model_dump(mode="json"),
                           None if self.started_at is None else self.started_at.isoformat(),
                           self.latency_unit, self.gate, self.errors_expected])


@dataclass(frozen=True)
class TrialData:
    """A trial as it will be stored."""

    histogram: Histogram
    uncorrected: Histogram | None
    # The summaries, with the statistics the harness printed in place of computed ones.
    summary: Summary
    summary_uncorrected: Summary | None
    origin: dict[str, Any] | None
    metrics: dict[str, float]
    failures: dict[str, Any] | None
    intervals: list[dict[str, Any]] | None
    tuning: dict[str, str] | None
    disturbed: str | None


def submit(
    session: Session,
    project: Project,
    body: RunCreate,
    *,
    request_hash: str,
    idempotency_key: str | None = None,
    job_id: int | None = None,
    confirms_run_id: int | None = None,
) -> Submission:
    """Stores a `latlab.result/v1` document; a retried submission returns the first run.
    Series and trials go in with COPY (`runs.store`)."""
    if idempotency_key is not None:
        earlier = _find_by_key(session, project.id, idempotency_key)
        if earlier is not None:
            return _replay(earlier, request_hash)
    # Every histogram is built before anything is written, so bad content stores nothing.
    trials = read_trials(body)
    host = _upsert_host(session, body) if body.host is not None else None
    run = Run(
        project_id=project.id,
        suite=body.suite,
        scenario=body.scenario,
        params=body.params,
        started_at=body.started_at,
        finished_at=body.finished_at,
        created_at=get_clock().now(),
        source_kind=body.source.kind,
        commit=body.source.commit,
        repo=body.source.repo,
        branch=body.source.branch,
        build_url=body.source.build_url,
        pull_request=body.source.pull_request,
        start_branch=None if body.source.start_point is None else body.source.start_point.branch,
        start_commit=None if body.source.start_point is None
        else body.source.start_point.commit,
        host_id=None if host is None else host.id,
        host_name=None if body.host is None else body.host.name,
        host_tags=[] if body.host is None else body.host.tags,
        host_fingerprint={} if body.host is None else body.host.fingerprint,
        job_id=job_id,
        idempotency_key=idempotency_key,
        request_hash=request_hash,
        sweep=None if body.sweep is None else body.sweep.model_dump(),
        metric_info={name: spec.model_dump() for name, spec in body.metric_info.items()},
        confirms_run_id=confirms_run_id,
        gate=body.gate,
        harness=None if body.harness is None else body.harness.model_dump(),
        errors_expected=body.errors_expected,
        series_count=len(body.series),
        trial_count=sum(len(item.trials) for item in body.series),
    )
    try:
        with session.begin_nested():
            session.add(run)
            session.flush()
    except IntegrityError:
        # Another submission with the same key committed first: answer with its run.
        earlier = _find_by_key(session, project.id, idempotency_key or "")
        if earlier is None:
            raise
        return _replay(earlier, request_hash)
    series_ids = store.reserve_ids(session, "series", len(body.series))
    omitted = suite_service.omitted_params(session, run.suite)
    store.copy_rows(session, "series", store.SERIES_COLUMNS, (
        series_row(run, series_id, item, item_trials, omitted)
        for series_id, item, item_trials in zip(series_ids, body.series, trials, strict=True)))
    trial_ids = iter(store.reserve_ids(session, "trial", run.trial_count))
    store.copy_rows(session, "trial", store.TRIAL_COLUMNS, (
        trial_row(next(trial_ids), run, series_id, index, data)
        for series_id, item_trials in zip(series_ids, trials, strict=True)
        for index, data in enumerate(item_trials)))
    if body.profiles:
        session.add_all(profiles.rows(run, {
            label_key(item.labels): series_id
            for series_id, item in zip(series_ids, body.series, strict=True)}, body.profiles))
        session.flush()
    return Submission(run, replayed=False)


def adapt(raw: bytes | bytearray, query: AdapterQuery) -> RunCreate:
    """A harness's output as a run (`POST /runs?adapter=`), read by the same adapter as
    `latlab submit --adapter`, in a reader process of its own (`core.isolation`): output it
    cannot read is refused naming the line or JSON path, and output that crashes the reader,
    needs too much memory or takes too long costs this request only."""
    if query.adapter not in parsers.PARSERS:
        known = ", ".join(["latlab", *sorted(parsers.PARSERS)])
        raise Unprocessable(f"unknown adapter '{query.adapter}' (known: {known})",
                            "query.adapter")
    if not raw or raw.isspace():
        raise Unprocessable(f"the body is empty: expected {query.adapter} output")
    request = {"adapter": query.adapter, "suite": query.suite, "scenario": query.scenario,
               "started_at": (query.started_at or get_clock().now()).isoformat(),
               "source": query.source.model_dump(mode="json"), "unit": query.latency_unit,
               "gate": list(query.gate)}
    try:
        answer = _readers().run(request, raw)
    except isolation.Crashed as error:
        raise Unprocessable(f"the {query.adapter} adapter crashed reading this output "
                            f"({error}); nothing was stored") from None
    except isolation.OutOfMemory:
        raise PayloadTooLarge(
            f"reading this {query.adapter} output needs more memory than a reader may use "
            f"({get_settings().adapter_memory_mb} MiB); nothing was stored") from None
    except isolation.TooSlow as error:
        raise ServiceUnavailable(f"{error}; nothing was stored", retry_after=5) from None
    if "error" in answer:
        raise Unprocessable(answer["error"] if not answer.get("unexpected") else
                            f"the {query.adapter} adapter cannot read this output "
                            f"({answer['error']})")
    run = RunCreate.model_validate_json(answer["document"])
    return run.model_copy(update={"errors_expected": query.errors_expected})


@cache
def _readers() -> isolation.Readers:
    settings = get_settings()
    return isolation.Readers(
        [sys.executable, "-m", "latlab_contract.parsers.reader",
         "--memory-mb", str(settings.adapter_memory_mb)], settings.adapter_deadline_s, spare=2)


def parse_result(raw: bytes | bytearray) -> RunCreate:
    """A submission's body as the result contract, its raw samples read straight into arrays
    (`runs.samples`); a document the fast path cannot take is validated as it is, so every
    problem is named by its path."""
    fast = samples.extract(raw)
    if fast is not None:
        document, arrays = fast
        strict_json(document)  # small now: the arrays are out
        try:
            body = RunCreate.model_validate_json(document)
        except ValidationError:
            body = None
        if body is not None and samples.restore(body, arrays):
            return body
    return parse_body(RunCreate, raw)


def read_trials(body: RunCreate) -> list[list[TrialData]]:
    """Every trial's histograms and summaries, per series (an `Unprocessable` naming the
    path of the first that cannot be read)."""
    return [[_trial_data(trial, f"$.series[{s}].trials[{t}]")
             for t, trial in enumerate(item.trials)] for s, item in enumerate(body.series)]


def _find_by_key(session: Session, project_id: int, key: str) -> Run | None:
    return session.scalar(
        select(Run).where(Run.project_id == project_id, Run.idempotency_key == key)
    )


def _replay(earlier: Run, request_hash: str) -> Submission:
    if earlier.request_hash != request_hash:
        raise Conflict(
            f"Idempotency-Key was used for run {earlier.id} with a different body"
        )
    return Submission(earlier, replayed=True)


def _trial_data(trial: Any, path: str) -> TrialData:
    histogram = _histogram(trial.latency, f"{path}.latency")
    summary, origin = _described(histogram, trial.latency, f"{path}.latency")
    uncorrected = (None if trial.latency_uncorrected is None
                   else _histogram(trial.latency_uncorrected, f"{path}.latency_uncorrected"))
    return TrialData(
        histogram=histogram, uncorrected=uncorrected, summary=summary,
        summary_uncorrected=None if uncorrected is None else _described(
            uncorrected, trial.latency_uncorrected, f"{path}.latency_uncorrected")[0],
        origin=origin,
        metrics=dict(trial.metrics),
        failures=None if trial.failures is None else trial.failures.model_dump(),
        intervals=None
        if trial.intervals is None
        else [_interval(i, f"{path}.intervals[{k}]") for k, i in enumerate(trial.intervals)],
        tuning=trial.tuning,
        disturbed=trial.disturbed,
    )


def _described(histogram: Histogram, latency: Latency, path: str
               ) -> tuple[Summary, dict[str, Any] | None]:
    try:
        return histogram.summary().described(latency.reported, latency.rebuilt,
                                             latency.resolution_ns)
    except ValueError as error:
        raise Unprocessable(str(error), path) from None


def _interval(interval: Interval, path: str) -> dict[str, Any]:
    stored = interval.model_dump(exclude_none=True)
    if interval.hdr is not None:
        stored["hdr"] = Histogram.from_hdr(interval.hdr, f"{path}.hdr", allow_empty=True).to_hdr()
    return stored


def _histogram(latency: Latency, path: str) -> Histogram:
    raw: Any = latency.samples_ns
    if isinstance(raw, samples.Chunked):  # read straight from the request's bytes
        return Histogram.from_chunks(raw.chunks, f"{path}.samples_ns")
    if raw is not None:
        return Histogram.from_samples(np.asarray(raw, dtype=np.int64), f"{path}.samples_ns")
    assert latency.hdr is not None
    return Histogram.from_hdr(latency.hdr, f"{path}.hdr")


def series_row(run: Run, series_id: int, item: SeriesIn, trials: list[TrialData],
            omitted: dict[str, Any]) -> dict[str, Any]:
    uncorrected = [t.uncorrected for t in trials if t.uncorrected is not None]
    merged_uncorrected = (
        Histogram.merge(uncorrected) if len(uncorrected) == len(trials) else None
    )
    names = {name for t in trials for name in t.metrics}
    labels = label_key(item.labels)
    one = trials[0] if len(trials) == 1 else None
    # Trials of one value each (a go or Google Benchmark line): the series is those values,
    # exact as the tool printed them, not their whole-nanosecond buckets.
    single = all(t.summary.count == 1 and t.origin and "mean" in t.origin["reported"]
                 for t in trials)
    summary = (one.summary if one is not None else Summary.of_values(
        [t.summary.mean for t in trials]) if single
        else Histogram.merge([t.histogram for t in trials]).summary())
    return {
        "id": series_id, "run_id": run.id, "labels": item.labels, "label_key": labels,
        "summary": summary.as_dict(),
        "summary_origin": _merged_origin(trials) if one is None else one.origin,
        "summary_uncorrected": None if merged_uncorrected is None
        else (merged_uncorrected.summary() if one is None or one.summary_uncorrected is None
              else one.summary_uncorrected).as_dict(),
        "metrics": {
            name: statistics.median(t.metrics[name] for t in trials if name in t.metrics)
            for name in sorted(names)
        },
        "failures": _failures_of(t.failures for t in trials),
        # A confirmation run's series belong to no history.
        "history": None if run.confirms_run_id is not None
        else keys.history(run.project_id, run.suite, run.scenario, labels),
        "params_key": keys.params_key(run.params, omitted), "started_at": run.started_at,
        "branch": run.branch, "host_name": run.host_name,
    }


def _failures_of(trials: Iterable[dict[str, Any] | None]) -> dict[str, Any] | None:
    """Trials' failures added up: failed of attempted (None when a trial's attempts are
    unknown), the first trials' words, how many trials failed; None when none did."""
    failed = [item for item in trials if item is not None]
    if not failed:
        return None
    totals = [item["total"] for item in failed]
    details = list(dict.fromkeys(item["detail"] for item in failed))
    return {"failed": sum(item["failed"] for item in failed),
            "total": None if None in totals else sum(totals), "trials": len(failed),
            "detail": "; ".join(details[:3]) + ("; ..." if len(details) > 3 else "")}


def _merged_origin(trials: list[TrialData]) -> dict[str, Any] | None:
    """Trials merged: the statistics a tool printed do not add up (the merged summary is
    computed), those of rebuilt histograms stay interpolated, and the coarsest step a tool
    printed in stays."""
    rebuilt = {key for t in trials if t.origin for key in t.origin["interpolated"]}
    steps = [t.origin["resolution_ns"] for t in trials if t.origin and "resolution_ns" in t.origin]
    if not rebuilt and not steps:
        return None
    origin: dict[str, Any] = {"reported": [], "interpolated": sorted(rebuilt)}
    if steps:
        origin["resolution_ns"] = max(steps)
    return origin


def trial_row(trial_id: int, run: Run, series_id: int, index: int,
           data: TrialData) -> dict[str, Any]:
    return {
        "id": trial_id, "started_at": run.started_at, "series_id": series_id, "index": index,
        "histogram": data.histogram.to_blob(),
        "histogram_uncorrected": None if data.uncorrected is None
        else data.uncorrected.to_blob(),
        "exact": data.histogram.samples is not None,
        "summary_uncorrected": None if data.summary_uncorrected is None
        else data.summary_uncorrected.as_dict(),
        "summary_origin": data.origin,
        "metrics": data.metrics, "failures": data.failures, "intervals": data.intervals,
        "tuning": data.tuning, "disturbed": data.disturbed,
        **data.summary.as_dict(),
    }


def _upsert_host(session: Session, body: RunCreate) -> Host:
    assert body.host is not None
    now = get_clock().now()
    values: dict[str, Any] = {"last_seen_at": now}
    if body.host.tags:
        values["tags"] = body.host.tags
    if body.host.fingerprint:
        values["fingerprint"] = body.host.fingerprint
    statement = (
        insert(Host)
        .values(name=body.host.name, tags=body.host.tags, fingerprint=body.host.fingerprint,
                capabilities={}, created_at=now, last_seen_at=now)
        .on_conflict_do_update(index_elements=[Host.name], set_=values)
        .returning(Host.id)
    )
    host_id = session.execute(statement).scalar_one()
    host = session.get(Host, host_id)
    assert host is not None
    return host
