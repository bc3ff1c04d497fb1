"""Projects and hosts: an admin names the projects a host serves; only their jobs are sent to
it, only their members see it (admins see every host), and the change is audited."""

from sqlalchemy import select

from latlab.hosts import service as host_service
from latlab.jobs import service as job_service
from latlab.jobs.schemas import JobCreate
from latlab.models import JobStatus, Project, Role
from latlab.projects import service as projects
from latlab_contract import Heartbeat
from latlab_workers.suites import SUITES_DIR, load_suite
from tests.factories import sign_in

ECHO = load_suite(SUITES_DIR / "echo").info()


def _heartbeat(db, name: str, tags: list[str]) -> int:
    return host_service.record_heartbeat(db, Heartbeat(
        name=name, tags=tags, fingerprint={"kernel": "6.1"}, suites=[ECHO])).id


def test_a_host_serves_the_projects_an_admin_names(client, actors, db) -> None:
    admin = actors.login(client, Role.admin)
    for slug in ("alpha", "bravo"):
        assert client.post("/api/v1/projects", json={"slug": slug, "name": slug}
                           ).status_code == 201
    shared = _heartbeat(db, "lab-shared", ["x86"])
    tuned = _heartbeat(db, "lab-tuned", ["x86", "tuned"])

    # Only an admin says which projects a host serves; an unknown project is named.
    assert client.put(f"/api/v1/hosts/{tuned}/projects", json={"projects": ["alpha", "nope"]}
                      ).json()["detail"] == "no project 'nope'"
    served = client.put(f"/api/v1/hosts/{tuned}/projects", json={"projects": ["alpha"]})
    assert served.status_code == 200 and served.json()["projects"] == ["alpha"]
    [event] = client.get("/api/v1/audit", params={"entity_type": "host"}).json()["items"]
    alpha = db.scalar(select(Project).where(Project.slug == "alpha"))
    assert (event["actor_user_id"], event["entity_id"], event["action"]) == (
        admin.id, tuned, "update")
    assert event["before"] == {"serves": None} and event["after"] == {"serves": [alpha.id]}
    listed = {h["name"]: h["projects"] for h in client.get("/api/v1/hosts").json()}
    assert listed == {"lab-shared": None, "lab-tuned": ["alpha"]}  # an admin: every host

    # A member of bravo: the tuned host is not there, its suites are not offered by it, and a
    # job that only it could run is refused.
    client.cookies.clear()
    member = actors.user(Role.member)
    db.flush()
    bravo = db.scalar(select(Project).where(Project.slug == "bravo"))
    projects.add_member(db, bravo, member)
    sign_in(client, member.email)
    assert client.put("/api/v1/auth/project", json={"project": "bravo"}).status_code == 200
    assert [h["name"] for h in client.get("/api/v1/hosts").json()] == ["lab-shared"]
    assert client.get(f"/api/v1/hosts/{tuned}").status_code == 404
    assert client.get(f"/api/v1/hosts/{shared}").status_code == 200
    [echo] = [s for s in client.get("/api/v1/suites").json() if s["id"] == "echo"]
    assert echo["hosts"] == ["lab-shared"]
    refused = client.post("/api/v1/jobs", json={"suite": "echo", "host_tags": ["tuned"]})
    assert refused.status_code == 409 and "no online host of the project" in refused.text
    assert client.put(f"/api/v1/hosts/{tuned}/projects", json={"projects": None}
                      ).status_code == 403

    # Bravo's jobs queue for the shared host while alpha's go to either.
    first = client.post("/api/v1/jobs", json={"suite": "echo"}).json()
    second = client.post("/api/v1/jobs", json={"suite": "echo"}).json()
    assert (first["status"], second["status"]) == ("dispatched", "queued")
    alpha_job, = job_service.create_jobs(db, alpha, JobCreate(suite="echo"))
    assert alpha_job.status is JobStatus.dispatched and alpha_job.host_id == tuned


def test_a_job_pinned_to_a_host_that_stops_serving_its_project_fails_saying_why(
        db, actors) -> None:
    project = db.scalar(select(Project).where(Project.slug == "default"))
    host = _heartbeat(db, "lab-1", [])
    first, second = (job_service.create_jobs(db, project, JobCreate(suite="echo"))[0]
                     for _ in range(2))
    second.pinned_host_id = host  # a try job's next stage, measured where its first was
    other = Project(slug="other", name="other", created_at=project.created_at)
    db.add(other)
    db.flush()
    host_service.set_serves(db, host_service.get_host(db, host, None), [other.id])
    job_service.cancel(db, first)
    assert second.status is JobStatus.failed
    assert second.error == ("host lab-1 no longer serves the project; the job was measuring "
                            "there")
