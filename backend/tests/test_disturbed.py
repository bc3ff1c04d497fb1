"""A trial its host disturbed (the runner marks it; a CI harness may too) is stored, shown with
its reason, and left out of every verdict: compare's trials and the gate's history."""

import numpy as np
from sqlalchemy import select

from latlab.analysis import baselines
from latlab.models import Run, Scope, Series
from tests.factories import one_series, result, submit, trial

REASON = ("other processes used 1.40 CPUs during it, 0.10 during the series' median trial: "
          "they took CPU time from the programs measured")


def _trials(seed: int, scale: float, disturbed: set[int]) -> list[dict]:
    """Five trials; those `disturbed` three times slower, and marked so."""
    trials = []
    for index in range(5):
        slower = 3.0 if index in disturbed else 1.0
        trials.append(trial(np.random.default_rng(seed * 10 + index),
                            350_000 * scale * slower, sigma=0.1, n=1000,
                            metrics={"throughput": 100_000.0 / slower},
                            **({"disturbed": REASON} if index in disturbed else {})))
    return trials


def test_a_disturbed_trial_is_shown_and_left_out_of_every_verdict(client, actors, db) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    posted = []
    for seed, disturbed in ((1, set()), (2, {1, 3})):
        document = result(series=one_series(_trials(seed, 1.0, disturbed), client="go"),
                          commit=f"{seed:07x}")
        posted.append(submit(client, document, headers))
    base, candidate = posted
    run = client.get(f"/api/v1/runs/{candidate['id']}", headers=headers).json()
    trials = run["series"][0]["trials"]
    assert [t["disturbed"] for t in trials] == [None, REASON, None, REASON, None]
    # Both runs measured the same: without the two trials three times slower, nothing moved.
    assert candidate["verdict"] == "pass", candidate
    compared = client.get("/api/v1/compare", params={"baseline": base["id"],
                                                     "candidate": candidate["id"]},
                          headers=headers).json()
    by_metric = {m["metric"]: m for m in compared["series"][0]["metrics"]}
    assert by_metric["p99"]["candidate_trials"] == by_metric["throughput"][
        "candidate_trials"] == 3
    assert by_metric["p99"]["baseline_trials"] == 5
    assert by_metric["p99"]["verdict"] != "regressed"
    # The gate's history reads trial values from the store: the disturbed ones are not there.
    stored = db.get(Run, candidate["id"])
    series_id = db.scalar(select(Series.id).where(Series.run_id == stored.id))
    values = baselines._trial_values(db, [series_id], ["p99", "throughput"],
                                     (stored.started_at, stored.started_at))
    assert len(values[(series_id, "p99")]) == len(values[(series_id, "throughput")]) == 3
    assert max(values[(series_id, "throughput")]) == 100_000.0
