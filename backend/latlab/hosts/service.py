"""Lab hosts: heartbeats from runners, online state, and the suite catalogue they advertise."""

from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from latlab.core.clock import get_clock
from latlab.core.errors import NotFound
from latlab.models import Host, Job, JobStatus
from latlab.suites import service as suite_service
from latlab_contract import HEARTBEAT_INTERVAL_S, OFFLINE_AFTER_INTERVALS, Heartbeat, SuiteInfo

OFFLINE_AFTER = timedelta(seconds=HEARTBEAT_INTERVAL_S * OFFLINE_AFTER_INTERVALS)


def record_heartbeat(session: Session, heartbeat: Heartbeat) -> Host:
    now = get_clock().now()
    values = {
        "tags": heartbeat.tags,
        "address": heartbeat.address,
        "fingerprint": heartbeat.fingerprint,
        "capabilities": {"suites": [s.model_dump() for s in heartbeat.suites]},
        "heartbeat_at": now,
        "last_seen_at": now,
    }
    statement = (
        insert(Host)
        .values(name=heartbeat.name, created_at=now, **values)
        .on_conflict_do_update(index_elements=[Host.name], set_=values)
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


def list_hosts(session: Session) -> list[Host]:
    return list(session.scalars(select(Host).order_by(Host.name)))


def get_host(session: Session, host_id: int) -> Host:
    host = session.get(Host, host_id)
    if host is None:
        raise NotFound(f"no host {host_id}")
    return host


def current_job(session: Session, host: Host) -> Job | None:
    return session.scalar(
        select(Job).where(Job.host_id == host.id,
                          Job.status.in_([JobStatus.dispatched, JobStatus.running]))
        .order_by(Job.id.desc()).limit(1))


def online_hosts(session: Session) -> list[Host]:
    cutoff = get_clock().now() - OFFLINE_AFTER
    return list(session.scalars(
        select(Host).where(Host.heartbeat_at >= cutoff).order_by(Host.name)
    ))


def suites_of(host: Host) -> list[SuiteInfo]:
    return [SuiteInfo.model_validate(s) for s in host.capabilities.get("suites", [])]


def catalogue(session: Session) -> dict[str, tuple[SuiteInfo, list[str]]]:
    """Suites offered by online hosts: the definition from the latest heartbeat, and hosts."""
    offered: dict[str, tuple[SuiteInfo, list[str]]] = {}
    hosts = sorted(online_hosts(session), key=lambda h: h.heartbeat_at or h.created_at)
    for host in hosts:
        for suite in suites_of(host):
            names = offered.get(suite.id, (suite, []))[1]
            offered[suite.id] = (suite, [*names, host.name])
    return dict(sorted(offered.items()))
