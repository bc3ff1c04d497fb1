"""The overview, the runs list, a trend chart's log scale, legend and zoom, and a comparison
without common series, and a run page's banner, summary table and history, in Chromium
(frontend/tests/e2e/lists.test.mjs, screenshots), on a history the old pages got wrong: 31
suites with runs older than the last 100 (the overview built from the last 100 runs showed
one), a failing suite among them, two runs of different series, and two runs of 30 series
whose comparison has one regression."""

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from latlab.models import Alert, AlertState, Role, Run, Scope, Severity
from tests.browser import assert_built, run_browser
from tests.factories import Actors, result, samples, submit

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def submitted(client: httpx.Client, suite: str, scenario: str, at: datetime,
           labels: dict[str, str] | None = None, scale: float = 350_000,
           more: list[dict[str, Any]] | None = None, tuning: dict[str, str] | None = None
           ) -> int:
    trial = {"latency": {"samples_ns": samples(n=200, scale_ns=scale)},
             "metrics": {"throughput": 1000.0}, **({"tuning": tuning} if tuning else {})}
    document = result(suite=suite, scenario=scenario, started_at=at.isoformat(),
                      finished_at=(at + timedelta(seconds=5)).isoformat(),
                      series=[{"labels": labels or {"client": "rust", "load": "hdr"},
                               "trials": [trial]}, *(more or [])])
    return int(submit(client, document)["id"])


def submit_wide(client: httpx.Client, at: datetime, slower: str | None) -> int:
    """A run of 30 series (client=c0 ... c29), 8 trials each; two such runs are the same
    but for the `slower` series, 1.5x slower in every trial."""
    series = [{"labels": {"client": f"c{i}"}, "trials": [
        {"latency": {"samples_ns": samples(n=200, seed=trial,
                                           scale_ns=525_000 if f"c{i}" == slower else 350_000)}}
        for trial in range(8)]} for i in range(30)]
    # Commits alike in their first 7 characters: the trend's axis must tell them apart.
    document = result(suite="wide", scenario="default", started_at=at.isoformat(),
                      finished_at=(at + timedelta(seconds=5)).isoformat(), series=series,
                      commit=f"feed000{2 if slower else 1}{'a' * 32}")
    return int(submit(client, document)["id"])


def test_overview_runs_list_and_compare_in_chromium(committed_db, live_server) -> None:
    assert_built()
    actors = Actors(committed_db)
    admin = actors.user(Role.admin, email="lists-admin@lab.test")
    client = actors.submitter(live_server)
    for _ in range(24):  # 25 tokens: the settings page shows them 20 a page
        actors.token(Scope.read)
    committed_db.commit()

    for i in range(30):
        submitted(client, f"suite-{i:02d}", "default", T0 + timedelta(minutes=i))
    # suite-07's latest run failed, was refused a tuning, opened an alert, and has a second
    # series (the labels both share are said once above its summary table).
    go = {"labels": {"client": "go", "load": "hdr"},
          "trials": [{"latency": {"samples_ns": samples(n=200, seed=5)}}]}
    failing = submitted(client, "suite-07", "default", T0 + timedelta(hours=1), scale=500_000,
                        more=[go], tuning={"sched_fifo": "refused: not permitted here"})
    run = committed_db.get_one(Run, failing)
    run.verdict = "fail"
    committed_db.add(Alert(
        project_id=run.project_id, source="test", history_key="lists-e2e", kind="sla",
        severity=Severity.critical, state=AlertState.open, suite="suite-07",
        scenario="default", series_labels={"client": "rust", "load": "hdr"}, metric="p99",
        unit="ns", message="P99 over its SLA", run_id=failing, opened_at=T0, updated_at=T0,
        occurrences=1))
    committed_db.commit()
    for i in range(110):
        submitted(client, "busy", "quick", T0 + timedelta(hours=2, seconds=i),
                  scale=350_000 * (1 + i % 7))
    # go test -bench: one value a trial (ns/op), no distribution.
    bench = result(suite="gobench", scenario="ci", series=[
        {"labels": {"bench": "BenchmarkParse"},
         "trials": [{"latency": {"samples_ns": [ns]}} for ns in (1200, 1350, 1290)]}])
    bench_run = submit(client, bench)["id"]
    rust = submitted(client, "pair", "default", T0 + timedelta(hours=3), {"client": "rust"})
    go = submitted(client, "pair", "default", T0 + timedelta(hours=3, minutes=1), {"client": "go"})

    wide = [submit_wide(client, T0 - timedelta(days=2, hours=-i), slower="c17" if i else None)
            for i in range(2)]
    # The newer one's gate named c17 (the runs are too few for a window: set by hand).
    newer = committed_db.get_one(Run, wide[1])
    newer.verdict = "fail"
    newer.verdict_reasons = [{"kind": "regression", "series": {"client": "c17"}, "metric": "p99",
                              "message": "P99 +50 % against its window"}]
    committed_db.commit()

    run_browser("lists", live_server, email=admin.email, LATLAB_FAILING_RUN=str(failing),
                LATLAB_PAIR_RUNS=f"{rust},{go}", LATLAB_WIDE_RUNS=f"{wide[0]},{wide[1]}",
                LATLAB_BENCH_RUN=str(bench_run))
