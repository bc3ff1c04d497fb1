"""A try job measured in stages: a later stage's trials are added to the job's run
(`runs.extension.extend`), and its series are summarised again over all their trials. The
references are computed here from the raw samples (numpy's inverted_cdf is nearest rank)."""

import json
import statistics
from typing import Any

import numpy as np
import pytest
from sqlalchemy import func, select, update

from latlab.core.errors import Unprocessable
from latlab.models import Profile, Run, Scope, Series, Trial
from latlab.runs import service as run_service
from latlab.runs.extension import extend
from latlab.runs.submission import parse_result
from latlab_contract.result import RunCreate
from tests.factories import result, samples

LABELS = ({"client": "rust"}, {"client": "go"})
# Throughput of each trial: the first stage's median is 200, all five's 250.
THROUGHPUT = [100.0, 300.0, 250.0, 500.0, 50.0]
FIRST, LATER = range(2), range(2, 5)


def _values(label: int, trial: int) -> list[int]:
    """Each trial's own samples, of its own size and scale."""
    return samples(n=700 + 150 * trial, seed=10 * label + trial,
                   scale_ns=300_000 + 40_000 * trial + 90_000 * label)


def _stage(trials: range, labels: tuple[dict[str, str], ...] = LABELS,
           **overrides: Any) -> dict[str, Any]:
    return result(series=[
        {"labels": labels[s], "trials": [
            {"latency": {"samples_ns": _values(s, t)},
             "metrics": {"throughput": THROUGHPUT[t]}} for t in trials]}
        for s in range(len(labels))], **overrides)


def _body(document: dict[str, Any]) -> RunCreate:
    """As the api reads a submission (the raw samples' fast path)."""
    return parse_result(json.dumps(document).encode())


def _submitted(client, actors, db) -> Run:
    headers = actors.token(Scope.runs_write)
    response = client.post("/api/v1/runs", json=_stage(FIRST), headers=headers)
    assert response.status_code == 201, response.text
    # As the ingest side holds it: with its series and trials loaded.
    return run_service.load_run(db, response.json()["id"])


def _stored_trials(db, run: Run) -> int:
    return db.scalar(select(func.count()).select_from(Trial).join(Series)
                     .where(Series.run_id == run.id))


def test_a_later_stage_adds_its_trials_and_the_series_are_summarised_over_all(
        client, actors, db) -> None:
    run = _submitted(client, actors, db)
    extend(db, run, _body(_stage(LATER, finished_at="2026-11-22T10:05:00Z")))

    assert run.trial_count == 10 and run.series_count == 2
    assert run.finished_at.isoformat() == "2026-11-22T10:05:00+00:00"
    for s, labels in enumerate(LABELS):
        series = db.scalar(select(Series).where(Series.run_id == run.id,
                                                Series.labels == labels))
        trials = db.scalars(select(Trial).where(Trial.series_id == series.id)
                            .order_by(Trial.index)).all()
        assert [t.index for t in trials] == [0, 1, 2, 3, 4]
        assert [t.count for t in trials] == [len(_values(s, t)) for t in range(5)]
        assert {t.started_at for t in trials} == {run.started_at}
        pooled = np.concatenate([_values(s, t) for t in range(5)])
        summary = series.summary
        assert summary["count"] == pooled.size
        # Five trials' merged histogram: a percentile is the highest value of the bucket
        # holding its rank, at most 0.1 % (3 significant digits) above the sample's.
        for key, q in (("p50", 50), ("p99", 99), ("max", 100)):
            reference = float(np.percentile(pooled, q, method="inverted_cdf"))
            assert reference <= summary[key] <= reference * 1.001, key
        assert series.metrics == {"throughput": statistics.median(THROUGHPUT)}
        assert series.metrics["throughput"] != statistics.median(THROUGHPUT[:2])


def test_the_run_reads_back_through_the_api_with_every_trial(client, actors, db) -> None:
    run = _submitted(client, actors, db)
    extend(db, run, _body(_stage(LATER)))

    # The ingest side loads the run again to judge it: the added trials are there.
    assert [len(s.trials) for s in run_service.load_run(db, run.id).series] == [5, 5]
    read = client.get(f"/api/v1/runs/{run.id}",
                      headers=actors.token(Scope.read)).json()
    assert read["trial_count"] == 10 and read["series_count"] == 2
    for series in read["series"]:
        s = LABELS.index(series["labels"])
        assert [t["index"] for t in series["trials"]] == [0, 1, 2, 3, 4]
        assert [t["summary"]["count"] for t in series["trials"]] == [
            len(_values(s, t)) for t in range(5)]
        # A trial of exact samples keeps its exact summary: its own samples' nearest rank.
        assert series["trials"][3]["exact"] is True
        assert series["trials"][3]["summary"]["p99"] == np.percentile(
            _values(s, 3), 99, method="inverted_cdf")
        assert series["summary"]["count"] == sum(len(_values(s, t)) for t in range(5))
        assert series["metrics"] == {"throughput": statistics.median(THROUGHPUT)}


def test_a_staged_run_summarises_its_series_as_one_submitted_at_once(
        client, actors, db) -> None:
    staged = _submitted(client, actors, db)
    extend(db, staged, _body(_stage(LATER)))
    response = client.post("/api/v1/runs", json=_stage(range(5)),
                           headers=actors.token(Scope.runs_write))
    whole = run_service.load_run(db, response.json()["id"])
    columns = ("labels", "summary", "summary_origin", "summary_uncorrected", "metrics",
               "failures")
    assert [[getattr(s, c) for c in columns] for s in staged.series] == [
        [getattr(s, c) for c in columns] for s in whole.series]


def test_failures_are_added_up_over_both_stages(client, actors, db) -> None:
    first = _stage(FIRST)
    first["series"][0]["trials"][1]["failures"] = {"failed": 2, "total": 850,
                                                   "detail": "2 timeouts"}
    later = _stage(LATER)
    later["series"][0]["trials"][0]["failures"] = {"failed": 5, "total": 1000,
                                                   "detail": "5 resets"}
    response = client.post("/api/v1/runs", json=first, headers=actors.token(Scope.runs_write))
    run = run_service.load_run(db, response.json()["id"])
    extend(db, run, _body(later))

    rust = db.scalar(select(Series).where(Series.run_id == run.id,
                                          Series.labels == LABELS[0]))
    assert rust.failures == {"failed": 7, "total": 1850, "trials": 2,
                             "detail": "2 timeouts; 5 resets"}


@pytest.mark.parametrize(("document", "named"), [
    (_stage(LATER, labels=(LABELS[0], {"client": "c"})), '{"client":"c"}'),
    (_stage(LATER, labels=LABELS[:1]), '{"client":"go"}'),
    (_stage(LATER, scenario="small"), "small"),
    (_stage(LATER, suite="zmq"), "zmq"),
])
def test_a_stage_of_another_run_is_refused_and_stores_nothing(
        client, actors, db, document, named) -> None:
    run = _submitted(client, actors, db)
    with pytest.raises(Unprocessable, match="run") as refused:
        extend(db, run, _body(document))
    assert named in str(refused.value)
    assert run.trial_count == 4 and _stored_trials(db, run) == 4


def test_a_stage_with_an_unreadable_histogram_stores_nothing(client, actors, db) -> None:
    run = _submitted(client, actors, db)
    document = _stage(LATER)
    document["series"][1]["trials"][2]["latency"] = {"hdr": "HISTFAAAAAxx"}
    with pytest.raises(Unprocessable):
        extend(db, run, _body(document))
    assert run.trial_count == 4 and _stored_trials(db, run) == 4


def test_a_run_whose_histograms_were_retired_cannot_be_extended(client, actors, db) -> None:
    run = _submitted(client, actors, db)
    series_ids = select(Series.id).where(Series.run_id == run.id)
    db.execute(update(Trial).where(Trial.series_id.in_(series_ids))
               .values(histogram=None, histogram_uncorrected=None),
               execution_options={"synchronize_session": "fetch"})
    with pytest.raises(Unprocessable, match="retired"):
        extend(db, run, _body(_stage(LATER)))
    assert _stored_trials(db, run) == 4


def test_a_stages_profiles_go_on_its_series_once(client, actors, db) -> None:
    run = _submitted(client, actors, db)
    profile = {"labels": LABELS[1], "program": "server", "tool": "perf",
               "folded": "main;serve;parse 7\nmain;serve 3\n"}
    extend(db, run, _body(_stage(LATER, profiles=[profile])))
    go = db.scalar(select(Series).where(Series.run_id == run.id, Series.labels == LABELS[1]))
    stored = db.scalar(select(Profile).where(Profile.run_id == run.id))
    assert stored.series_id == go.id and stored.samples == 10

    with pytest.raises(Unprocessable, match="server already"):
        extend(db, run, _body(_stage(LATER, profiles=[profile])))
    assert run.trial_count == 10 and _stored_trials(db, run) == 10
