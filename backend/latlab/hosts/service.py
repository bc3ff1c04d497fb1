"""Lab hosts: heartbeats from runners, online state, and the suite catalogue they advertise."""

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import case, func, literal, null, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from latlab.core.clock import get_clock
from latlab.core.errors import NotFound
from latlab.models import Host, Job
from latlab.models.job import ACTIVE_JOB, ENDED_JOB
from latlab.suites import service as suite_service
from latlab_contract import HEARTBEAT_INTERVAL_S, OFFLINE_AFTER_INTERVALS, Heartbeat, SuiteInfo

OFFLINE_AFTER = timedelta(seconds=HEARTBEAT_INTERVAL_S * OFFLINE_AFTER_INTERVALS)


def record_heartbeat(session: Session, heartbeat: Heartbeat) -> Host:
    now = get_clock().now()
    running = heartbeat.running
    values: dict[str, Any] = {
        "tags": heartbeat.tags,
        "address": heartbeat.address,
        "fingerprint": heartbeat.fingerprint,
        "capabilities": {"suites": [s.model_dump() for s in heartbeat.suites]},
        "heartbeat_at": now,
        "last_seen_at": now,
        "running": null() if running is None else running.model_dump(),
    }
    statement = (
        insert(Host)
        .values(name=heartbeat.name, created_at=now, idle_since=None if running else now,
                **values)
        .on_conflict_do_update(index_elements=[Host.name], set_={
            **values, "idle_since": null() if running else func.coalesce(Host.idle_since, now),
            # An enrolled host's tags are its enrollment's (the admin's invitation): what a
            # runner announces does not widen the jobs it is sent.
            "tags": case((Host.enrolled_at.is_(None), literal(heartbeat.tags, Host.tags.type)),
                         else_=Host.tags)})
        .returning(Host.id)
    )
    host_id = session.execute(statement).scalar_one()
    suite_service.record(session, heartbeat.suites)
    host = session.get(Host, host_id, populate_existing=True)
    assert host is not None
    return host


def is_online(host: Host, now: datetime | None = None) -> bool:
    now = now or get_clock().now()
    return host.heartbeat_at is not None and now - host.heartbeat_at < OFFLINE_AFTER


def list_hosts(session: Session, project_id: int | None) -> list[Host]:
    """Every host (None: an admin asks), or those that serve the project."""
    return [host for host in session.scalars(select(Host).order_by(Host.name))
            if project_id is None or serves(host, project_id)]


def get_host(session: Session, host_id: int, project_id: int | None) -> Host:
    """A host, if it serves the project (None: any host); another is a 404."""
    host = session.get(Host, host_id)
    if host is None or not (project_id is None or serves(host, project_id)):
        raise NotFound(f"no host {host_id}")
    return host


def set_serves(session: Session, host: Host, project_ids: list[int] | None) -> Host:
    """The projects the host serves from now on (None: every project). A job already on it
    goes on; a queued one of another project goes to other hosts (one pinned to this host
    fails at its next dispatch, `jobs.service.dispatch_queued`)."""
    host.serves = None if project_ids is None else sorted(set(project_ids))
    session.flush()
    return host


def current_job(session: Session, host: Host) -> Job | None:
    return session.scalar(
        select(Job).where(Job.host_id == host.id, Job.status.in_(ACTIVE_JOB))
        .order_by(Job.id.desc()).limit(1))


def busy_elsewhere(session: Session, host: Host) -> bool:
    """Whether the host's runner is busy with an attempt the lab does not count as active on
    it (one the lab failed, superseded or was told had ended): it said so at a heartbeat
    after the lab's decision, and has not said otherwise since. A report from before the
    decision is not believed over it: that runner may have died since."""
    if host.running is None or host.heartbeat_at is None:
        return False
    job = session.get(Job, host.running["job_id"])
    if job is None:
        return True
    attempt = host.running["attempt"]
    if job.attempts == attempt and job.host_id == host.id and job.status in ACTIVE_JOB:
        return False  # the lab's own book counts it
    decided = (job.finished_at if job.status in ENDED_JOB
               else job.dispatched_at if job.attempts > attempt else job.last_event_at)
    return decided is None or host.heartbeat_at > decided


def serves(host: Host, project_id: int) -> bool:
    """Whether the host runs the project's jobs (and its members see it)."""
    return host.serves is None or project_id in host.serves


def online_hosts(session: Session, project_id: int) -> list[Host]:
    """The online hosts that serve the project."""
    cutoff = get_clock().now() - OFFLINE_AFTER
    return [host for host in session.scalars(
        select(Host).where(Host.heartbeat_at >= cutoff).order_by(Host.name))
        if serves(host, project_id)]


def suites_of(host: Host) -> list[SuiteInfo]:
    return [SuiteInfo.model_validate(s) for s in host.capabilities.get("suites", [])]


def catalogue(session: Session, project_id: int) -> dict[str, tuple[SuiteInfo, list[str]]]:
    """Suites offered by the online hosts that serve the project: the definition from the
    latest heartbeat, and hosts."""
    offered: dict[str, tuple[SuiteInfo, list[str]]] = {}
    hosts = sorted(online_hosts(session, project_id),
                   key=lambda h: h.heartbeat_at or h.created_at)
    for host in hosts:
        for suite in suites_of(host):
            names = offered.get(suite.id, (suite, []))[1]
            offered[suite.id] = (suite, [*names, host.name])
    return dict(sorted(offered.items()))
