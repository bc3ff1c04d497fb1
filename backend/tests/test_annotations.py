"""Annotations: a person's or a CI step's mark on the trends (`POST /annotations`, `latlab
annotate`), validated with nothing stored when refused; the lab's own when a run's host tuning
or a lab job's suite version is not what it was at the previous run; removed by members, with
the audit log keeping what they said."""

import subprocess
import sys
from datetime import datetime, timedelta

import pytest
from sqlalchemy import func, select

from latlab.alerts import delivery
from latlab.ingest import service as ingest
from latlab.models import (
    Annotation,
    AuditEvent,
    Job,
    JobStatus,
    Notification,
    Project,
    Role,
    Scope,
)
from latlab_contract.result import RunCreate
from tests.factories import Actors, allow_private_webhooks, result, submit


def _later(started_at: str) -> str:
    """A run's end, 12 s after its start."""
    return (datetime.fromisoformat(started_at) + timedelta(seconds=12)).isoformat()


def _count(db) -> int:
    return int(db.scalar(select(func.count()).select_from(Annotation)))


def _submit(client, headers, *, host: str = "lab-07", kernel: str = "6.14.0",
            started_at: str = "2026-11-22T10:00:00Z", key: str | None = None) -> int:
    document = result(host=host, started_at=started_at, finished_at=_later(started_at))
    document["host"]["fingerprint"]["kernel"] = kernel
    return int(submit(client, document, headers, key=key)["id"])


def test_a_ci_step_marks_a_deploy_and_reads_it_back(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    made = client.post("/api/v1/annotations", headers=headers, json={
        "text": "  deployed orders 2.4 (batching off) ", "suite": "http-order",
        "at": "2026-11-22T09:30:00+01:00", "link": "https://ci.example.com/deploys/812"})
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["text"] == "deployed orders 2.4 (batching off)"
    assert body["at"].startswith("2026-11-22T08:30:00")
    assert (body["kind"], body["suite"], body["host"], body["run_id"]) == (
        "note", "http-order", None, None)
    assert body["created_by"].startswith("token ci (")
    every = client.post("/api/v1/annotations", headers=headers,
                        json={"text": "kernel upgrade on every host"}).json()
    other = client.post("/api/v1/annotations", headers=headers,
                        json={"text": "zmq broker moved", "suite": "zmq"}).json()

    def listed(**query: str) -> list[int]:
        response = client.get("/api/v1/annotations", headers=headers, params=query)
        assert response.status_code == 200, response.text
        return [a["id"] for a in response.json()]

    # Newest first (the deploy's moment is in the past; the others are now).
    assert listed() == [other["id"], every["id"], body["id"]]
    assert listed(suite="http-order") == [every["id"], body["id"]]
    # "Now" is the tests' frozen clock: 2026-11-22 12:00 UTC.
    assert listed(since="2026-11-22T10:00:00Z") == [other["id"], every["id"]]
    assert listed(until="2026-11-22T10:00:00Z") == [body["id"]]


def test_a_range_is_marked_from_its_start_to_its_end(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    made = client.post("/api/v1/annotations", headers=headers, json={
        "text": "load test on the shared switch", "at": "2026-11-22T10:00:00Z",
        "until": "2026-11-22T14:00:00Z"})
    assert made.status_code == 201, made.text
    assert (made.json()["at"][:19], made.json()["until"][:19]) == (
        "2026-11-22T10:00:00", "2026-11-22T14:00:00")


@pytest.mark.parametrize(("body", "where"), [
    ({"text": ""}, "text"),
    ({"text": "   "}, "text"),
    ({"text": "x" * 501}, "text"),
    ({"text": "nul \x00"}, "text"),
    ({"text": "ok", "link": "javascript:alert(1)"}, "link"),
    ({"text": "ok", "at": "2026-11-22T10:00:00"}, "at"),  # no zone
    ({"text": "ok", "suite": "Not A Suite"}, "suite"),
    ({"text": "ok", "host": "-bad"}, "host"),
    ({"text": "ok", "kind": "host"}, "kind"),  # the lab's kinds are the lab's
    ({"text": "ok", "at": "2026-11-22T10:00:00Z", "until": "2026-11-22T09:00:00Z"}, ""),
    ({}, "text"),
])
def test_a_refused_annotation_says_why_and_stores_nothing(client, actors, db, body,
                                                          where) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    response = client.post("/api/v1/annotations", headers=headers, json=body)
    assert response.status_code == 422, response.text
    assert any(p["path"] == ("$." + where).rstrip(".") for p in response.json()["detail"]), (
        response.text)
    assert _count(db) == 0


def test_a_reader_may_not_annotate_nor_remove(client, actors, db) -> None:
    writer = actors.token(Scope.runs_write, Scope.read)
    made = client.post("/api/v1/annotations", headers=writer, json={"text": "deploy"}).json()
    reader = actors.token(Scope.read)
    assert client.post("/api/v1/annotations", headers=reader,
                       json={"text": "deploy"}).status_code == 403
    assert client.delete(f"/api/v1/annotations/{made['id']}", headers=reader).status_code == 403
    assert _count(db) == 1


def test_removing_one_is_audited_with_what_it_said(client, actors, db) -> None:
    actors.login(client)
    made = client.post("/api/v1/annotations", json={"text": "config change"}).json()
    assert client.delete(f"/api/v1/annotations/{made['id']}").status_code == 204
    assert client.delete(f"/api/v1/annotations/{made['id']}").status_code == 404
    assert _count(db) == 0
    events = db.scalars(select(AuditEvent).where(AuditEvent.entity_type == "annotation")
                        .order_by(AuditEvent.id)).all()
    assert [e.action for e in events] == ["create", "delete"]
    assert events[1].before is not None and events[1].before["text"] == "config change"


def test_the_lab_marks_a_hosts_tuning_changing_once(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    _submit(client, headers, started_at="2026-11-22T10:00:00Z")
    _submit(client, headers, host="lab-08", kernel="6.1.0", started_at="2026-11-22T10:30:00Z")
    upgraded = _submit(client, headers, kernel="6.15.1", started_at="2026-11-22T11:00:00Z")
    _submit(client, headers, kernel="6.15.1", started_at="2026-11-22T12:00:00Z")
    # A replay of the upgraded run stores nothing new, and marks nothing again.
    replayed = _submit(client, headers, kernel="6.15.1", started_at="2026-11-22T13:00:00Z",
                       key="k1")
    assert _submit(client, headers, kernel="6.15.1", started_at="2026-11-22T13:00:00Z",
                   key="k1") == replayed
    found = client.get("/api/v1/annotations", headers=headers).json()
    assert [(a["kind"], a["host"], a["suite"], a["run_id"], a["text"], a["created_by"])
            for a in found] == [("host", "lab-07", None, upgraded,
                                 "host lab-07: kernel 6.14.0 -> 6.15.1", "lab")]
    assert found[0]["at"].startswith("2026-11-22T11:00:00")
    # Drawn on trends of lab-07's runs, not on a trend of another host's.
    assert [a["id"] for a in client.get("/api/v1/annotations", headers=headers,
                                        params={"host": "lab-08"}).json()] == []


def test_the_lab_marks_a_change_of_the_gate_settings(client, actors, db) -> None:
    admin = actors.login(client, Role.admin)

    def put(settings: dict) -> None:
        response = client.put("/api/v1/gate-settings", json=settings)
        assert response.status_code == 200, response.text

    put({"default": {"window": 10}})
    put({"default": {"window": 10}, "suites": {"zmq/large": {"min_effect": 0.1}}})
    put({"default": {"window": 10}, "suites": {"zmq/large": {"min_effect": 0.1}}})  # unchanged
    made = db.scalars(select(Annotation).order_by(Annotation.id)).all()
    assert [(a.kind, a.suite, a.text) for a in made] == [
        ("gate", None, f"gate settings ({admin.email}): default window None -> 10"),
        ("gate", "zmq", f"gate settings ({admin.email}): zmq/large added")]


def test_an_alert_mentions_what_was_marked_in_the_day_before_its_run(client, actors,
                                                                     db) -> None:
    actors.login(client)
    allow_private_webhooks(db)
    headers = actors.token(Scope.runs_write, Scope.read)
    assert client.post("/api/v1/channels", json={
        "name": "team", "kind": "slack", "url": "http://127.0.0.1:9/hook"}).status_code == 201
    assert client.post("/api/v1/sla-rules", json={
        "name": "p99 over 1 ns", "suite": "http-order", "metric": "p99", "op": ">",
        "threshold": 1, "unit": "ns"}).status_code == 201
    for text, at, suite in (("deployed orders 2.4", "2026-11-22T09:30:00Z", "http-order"),
                            ("last week's deploy", "2026-11-20T09:30:00Z", "http-order"),
                            ("zmq broker moved", "2026-11-22T09:45:00Z", "zmq")):
        client.post("/api/v1/annotations", json={"text": text, "at": at, "suite": suite,
                                                 "link": "https://ci.example.com/d/1"})
    _submit(client, headers, started_at="2026-11-22T10:00:00Z")
    (told,) = db.scalars(select(Notification)).all()
    assert [(a["text"], a["at"][:16]) for a in told.payload["annotations"]] == [
        ("deployed orders 2.4", "2026-11-22T09:30")]
    texts = [element["text"] for block in delivery.blocks(told.payload)
             if block["type"] == "context" for element in block["elements"]]
    assert ("Annotated in the day before the run: 2026-11-22 09:30 UTC deployed orders 2.4 "
            "(<https://ci.example.com/d/1|link>)") in texts


def _job(db, project: Project) -> Job:
    job = Job(project_id=project.id, suite="echo", scenario="default", params={}, host_tags=[],
              repetitions=1, status=JobStatus.running, progress=0.0, attempts=1,
              created_at=project.created_at, programs=[], timeout_s=900)
    db.add(job)
    db.flush()
    return job


def test_the_lab_marks_a_suite_version_changing_between_lab_jobs(db) -> None:
    project = db.scalar(select(Project).where(Project.slug == "default"))

    def run(version: str, hour: int, job: bool = True, repo: str | None = None) -> int:
        source = {"kind": "job" if job else "ci", "commit": version,
                  **({"repo": repo} if repo else {})}
        document = RunCreate.model_validate(result(
            suite="echo", scenario="default", params={}, branch=None, source=source,
            started_at=f"2026-11-22T{hour:02d}:00:00Z",
            finished_at=_later(f"2026-11-22T{hour:02d}:00:00+00:00")))
        stored = ingest.ingest(db, project, document, request_hash=f"{version}{hour}",
                               job=_job(db, project) if job else None)
        return stored.run.id

    run("aaaa1111", 10)
    run("aaaa1111", 11)
    run("cccc3333", 12, job=False)  # CI's commit is its code's, not the suite's version
    run("dddd4444", 13, repo="orders")  # a repository's commit, not the suite's version
    changed = run("bbbb2222", 14)
    made = db.scalars(select(Annotation).where(Annotation.kind == "suite")).all()
    assert [(a.suite, a.host_name, a.run_id, a.text) for a in made] == [
        ("echo", None, changed, "suite echo: version aaaa1111 -> bbbb2222")]


def test_the_cli_annotates_and_lists(committed_db, live_server, tmp_path) -> None:
    token = Actors(committed_db).token(Scope.runs_write, Scope.read)["Authorization"].split()[1]
    committed_db.commit()

    def latlab(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "latlab_cli", *args, "--url", live_server],
            env={"LATLAB_TOKEN": token, "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                 "COLUMNS": "160"}, capture_output=True, text=True, timeout=60, check=False)

    made = latlab("annotate", "deployed 2.4 from the CLI", "--suite", "cli-suite",
                  "--at", "2026-11-22T10:00:00", "--link", "https://ci.example.com/d/1")
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith("annotation ") and "at 2026-11-22 10:00: deployed 2.4" in (
        made.stdout)
    listed = latlab("annotations", "--suite", "cli-suite")
    assert listed.returncode == 0, listed.stderr
    assert "deployed 2.4 from the CLI" in listed.stdout and "cli-suite" in listed.stdout
    refused = latlab("annotate", "", "--suite", "cli-suite")
    assert refused.returncode == 2 and "text" in refused.stderr
    bad_moment = latlab("annotate", "x", "--at", "yesterday")
    assert bad_moment.returncode == 2 and "not an ISO 8601 moment" in bad_moment.stderr
