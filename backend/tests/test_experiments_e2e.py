"""An experiment end to end with real parts, read in Chromium
(frontend/tests/e2e/experiments.test.mjs): saved from the dashboard's form, run from its page
on one host and then on another (two real runners with tags of their own, the second in a
network namespace of its own, reaching the lab over its own link as another machine would),
each run's echo
jobs measured and stored by the ingest worker, the beat's `experiments.advance` judging every
expectation once its jobs have ended: one that holds, one that does not, one that one trial
cannot decide; the two runs side by side and one exported as Markdown."""

import json

from latlab.models import Role
from tests import netns
from tests.browser import assert_built, run_browser
from tests.conftest import REDIS_URL
from tests.factories import Actors
from tests.netns import needs_namespaces
from tests.processes import Beat
from tests.test_jobs_e2e import SMALL, _online

HOSTS = {"lab-exp-a": "exp-a", "lab-exp-b": "exp-b"}
EXPERIMENT = {
    "name": "echo-twice", "title": "Is echo the same twice?",
    "question": "Two identical echo jobs on one host, and one of a single trial.",
    "jobs": {"one": {"suite": "echo", "params": SMALL, "repetitions": 3},
             "two": {"suite": "echo", "params": SMALL, "repetitions": 3},
             "single": {"suite": "echo", "params": SMALL, "repetitions": 1}},
    "series": {"first": {"job": "one"}, "second": {"job": "two"}, "lone": {"job": "single"}},
    "expectations": ["p50(first) <= 1000 * p50(second)",  # holds: the ratio is near 1
                     "p50(first) <= 1 ns",  # does not hold: no round trip takes a nanosecond
                     "p50(lone) <= p50(first)"],  # not decided: one trial has no interval
    "references": [{"series": "first", "metric": "p50", "value": 100, "unit": "us",
                    "source": "a figure from elsewhere"}],
    "conclusions": "Echo measures the same twice."}
OUTCOMES = ["holds", "does-not-hold", "not-decided"]


@needs_namespaces
def test_an_experiment_saved_run_on_two_hosts_and_read_in_the_dashboard(
        committed_db, live_server, member, start_runner, tmp_path) -> None:
    assert_built()
    user = Actors(committed_db).user(Role.member, email="e2e-experiments@lab.test")
    committed_db.commit()
    (first, first_tag), (second, second_tag) = HOSTS.items()
    with netns.lab_hosts(1, REDIS_URL, subnet=233) as created:
        (namespace,) = created
        start_runner(first, tags=first_tag)
        start_runner(second, tags=second_tag,
                     **netns.runner_options(namespace, created, REDIS_URL))
        _online(member, first)
        assert _online(member, second)["address"] == created[namespace][0]
        beat = Beat(tmp_path / "beat-schedule")
        try:
            run_browser("experiments", live_server, email=user.email, timeout=1200,
                        LATLAB_EXPERIMENT=json.dumps(EXPERIMENT),
                        LATLAB_HOST_TAGS=",".join(HOSTS.values()),
                        LATLAB_OUTCOMES=json.dumps(OUTCOMES))
        finally:
            beat.stop()

    # What the browser ran: two runs of version 1, each of its jobs on the host it named.
    runs = member.get("/api/v1/experiments/echo-twice/runs").json()
    assert [(r["version"], r["status"]) for r in runs] == [(1, "done"), (1, "done")]
    for run, (host, tag) in zip(reversed(runs), HOSTS.items(), strict=True):
        assert run["host_tags"] == [tag]
        for job in run["jobs"].values():
            assert member.get(f"/api/v1/jobs/{job['job_id']}").json()["host_name"] == host
        assert [j["outcome"] for j in run["judgements"]] == OUTCOMES
