"""CPU profiles through the api: stored with a run (folded stacks, per series and program),
listed, read back as folded text and as speedscope, compared frame by frame; bad profiles
refused with their path and nothing stored."""

from typing import Any

import pytest
from sqlalchemy import func, select

from latlab.models import Profile, Run, Scope
from tests.factories import result, samples, submit

BEFORE = "main;serve;parse 50\nmain;serve;respond 50\n"
# The candidate spins in a new function: 120 of its 200 samples.
AFTER = "main;serve;parse 40\nmain;serve;respond 30\nmain;serve;respond 10\nmain;serve;spin 120\n"


def _document(profiles: list[dict[str, Any]], commit: str = "9f1c2e7",
              labels: tuple[str, ...] = ("rust",)) -> dict[str, Any]:
    return result(series=[{"labels": {"client": name}, "trials": [
        {"latency": {"samples_ns": samples()}, "metrics": {"throughput": 1000.0}}]}
        for name in labels], commit=commit, profiles=profiles)


def _stacks(folded: str) -> dict[str, int]:
    """Folded text as {stack: samples}, summed: an independent reading of the format."""
    found: dict[str, int] = {}
    for line in folded.splitlines():
        stack, count = line.rsplit(" ", 1)
        found[stack] = found.get(stack, 0) + int(count)
    return found


def test_a_runs_profiles_are_listed_and_read_back_as_folded_text_and_speedscope(
        client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    run_id = int(submit(client, _document(
        [{"labels": {"client": "rust"}, "program": "server", "tool": "perf",
          "frequency_hz": 997, "folded": AFTER},
         {"labels": {"client": "go"}, "program": "client", "tool": "pprof", "folded": BEFORE}],
        labels=("rust", "go")), headers)["id"])
    listed = client.get(f"/api/v1/runs/{run_id}/profiles", headers=headers).json()
    assert [(p["labels"], p["program"], p["tool"], p["samples"], p["stacks"])
            for p in listed] == [({"client": "rust"}, "server", "perf", 200, 3),
                                 ({"client": "go"}, "client", "pprof", 100, 2)]
    server = listed[0]
    folded = client.get(f"/api/v1/runs/{run_id}/profiles/{server['id']}",
                        params={"format": "folded"}, headers=headers)
    assert folded.headers["content-type"].startswith("text/plain")
    # The two respond lines are one stack; heaviest first.
    assert folded.text.splitlines()[0] == "main;serve;spin 120"
    assert _stacks(folded.text) == _stacks(AFTER)
    document = client.get(f"/api/v1/runs/{run_id}/profiles/{server['id']}",
                          headers=headers).json()
    (profile,) = document["profiles"]
    names = [frame["name"] for frame in document["shared"]["frames"]]
    rebuilt = {";".join(names[i] for i in stack): weight
               for stack, weight in zip(profile["samples"], profile["weights"], strict=True)}
    assert rebuilt == _stacks(AFTER) and profile["endValue"] == 200
    assert client.get(f"/api/v1/runs/{run_id}/profiles/999999999",
                      headers=headers).status_code == 404


def test_two_runs_profiles_compare_frame_by_frame(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    baseline = int(submit(client, _document(
        [{"labels": {"client": "rust"}, "program": "server", "tool": "perf", "folded": BEFORE}]),
        headers)["id"])
    candidate = int(submit(client, _document(
        [{"labels": {"client": "rust"}, "program": "server", "tool": "perf", "folded": AFTER},
         {"labels": {"client": "rust"}, "program": "client", "tool": "perf", "folded": BEFORE}],
        commit="abc1234"), headers)["id"])
    answer = client.get("/api/v1/compare/profiles", headers=headers,
                        params={"baseline": baseline, "candidate": candidate}).json()
    (delta,) = answer["profiles"]
    assert answer["unmatched"] == [{"side": "candidate", "labels": {"client": "rust"},
                                    "program": "client"}]
    assert (delta["program"], delta["baseline_samples"], delta["candidate_samples"]) == (
        "server", 100, 200)
    frames = {f["frame"]: f for f in delta["frames"]}
    # By hand: spin 0 -> 120/200; parse 50/100 -> 40/200; respond 50/100 -> 40/200; serve and
    # main are on every stack (total 1 -> 1) and never a leaf.
    assert delta["frames"][0]["frame"] == "spin"
    assert frames["spin"]["self_delta"] == pytest.approx(0.6)
    assert frames["parse"]["self_delta"] == pytest.approx(0.2 - 0.5)
    assert frames["respond"]["candidate_self"] == pytest.approx(0.2)
    assert frames["serve"]["baseline_total"] == frames["serve"]["candidate_total"] == 1.0
    assert frames["serve"]["self_delta"] == 0.0
    stacks = {";".join(s["frames"]): (s["baseline"], s["candidate"]) for s in delta["stacks"]}
    assert stacks == {"main;serve;spin": (0, 120), "main;serve;parse": (50, 40),
                      "main;serve;respond": (50, 40)}
    only_server = client.get("/api/v1/compare/profiles", headers=headers, params={
        "baseline": baseline, "candidate": candidate, "program": "client"}).json()
    assert only_server["profiles"] == [] and len(only_server["unmatched"]) == 1


def test_both_versions_of_one_run_compare_by_their_labels(client, actors) -> None:
    """A confirmation run profiles both versions: variant=baseline against variant=candidate."""
    headers = actors.token(Scope.runs_write, Scope.read)
    document = result(series=[{"labels": {"client": "rust", "variant": variant}, "trials": [
        {"latency": {"samples_ns": samples()}}]} for variant in ("baseline", "candidate")],
        profiles=[{"labels": {"client": "rust", "variant": "baseline"}, "program": "server",
                   "tool": "perf", "folded": BEFORE},
                  {"labels": {"client": "rust", "variant": "candidate"}, "program": "server",
                   "tool": "perf", "folded": AFTER}])
    run_id = int(submit(client, document, headers)["id"])
    answer = client.get("/api/v1/compare/profiles", headers=headers, params={
        "baseline": run_id, "candidate": run_id,
        "baseline_labels": '{"variant":"baseline"}',
        "candidate_labels": '{"variant":"candidate"}'}).json()
    (delta,) = answer["profiles"]
    assert delta["labels"] == {"client": "rust"} and delta["frames"][0]["frame"] == "spin"


@pytest.mark.parametrize(("profiles", "path", "message"), [
    ([{"labels": {"client": "c"}, "program": "server", "tool": "perf", "folded": BEFORE}],
     "$.profiles", "no series has the labels"),
    ([{"labels": {"client": "rust"}, "program": "server", "tool": "perf",
       "folded": "main;serve 10\nmain;serve ten\n"}],
     "$.profiles[0].folded", "line 2 is not"),
    ([{"labels": {"client": "rust"}, "program": "server", "tool": "perf",
       "folded": "main;;serve 10\n"}], "$.profiles[0].folded", "line 1 is not"),
    ([{"labels": {"client": "rust"}, "program": "server", "tool": "perf",
       "folded": f"main {2**48}\nmain;serve 1\n"}], "$.profiles[0].folded", "counts must be"),
    ([{"labels": {"client": "rust"}, "program": "server", "tool": "perf", "folded": "\n\n"}],
     "$.profiles[0].folded", "holds no samples"),
    ([{"labels": {"client": "rust"}, "program": "server", "tool": "perf", "folded": BEFORE}] * 2,
     "$.profiles", "a second profile of server"),
])
def test_a_bad_profile_is_refused_with_its_path_and_nothing_is_stored(
        client, actors, db, profiles, path, message) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    runs = db.scalar(select(func.count()).select_from(Run))
    response = client.post("/api/v1/runs", json=_document(profiles), headers=headers)
    assert response.status_code == 422, response.text
    problem = response.text
    assert message in problem and path.split("[")[0] in problem, problem
    assert db.scalar(select(func.count()).select_from(Run)) == runs
    assert db.scalar(select(func.count()).select_from(Profile)) == 0
