"""Which runners' messages the lab believes (the ingest worker's check of every heartbeat,
job event and outcome, `latlab.worker`).

A message is believed when it is signed with the key of the enrolled host it names
(`latlab_contract.signing`); a heartbeat also only while it is fresh (a recorded one replayed
later is not), and a job's event or outcome only from the host the job's current attempt was
dispatched to. A message that fails is refused: nothing it says is applied, and an audit
event records the claimed sender, the task, the job it named and why (`REFUSED`); Prometheus
counts them (`latlab_messages_refused_total`). A report of an attempt the lab no longer
expects, from a host it once dispatched to, is not refused here: the job service ignores it
as it always did (a late or redelivered message is no forgery).
"""

import time
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from latlab.core.clock import get_clock
from latlab.models import AuditEvent, Host, Job
from latlab_contract import HOST_HEARTBEAT
from latlab_contract.signing import Refused, claimed_host, verify

# A heartbeat older than this (by the sender's clock and the lab's) is refused: clocks of
# enrolled hosts are expected within a minute or two of the lab's.
HEARTBEAT_FRESH_S = 300.0
REFUSED = "refused"  # the audit action of a refused message


def admit(session: Session, task: str, envelope: Any) -> dict[str, Any] | None:
    """The body of a message the lab believes; None when it is refused (and audited)."""
    claimed, host = "", None
    try:
        claimed = claimed_host(envelope)
        host = session.scalar(select(Host).where(Host.name == claimed))
        if host is None or host.secret is None:
            raise Refused(f"host {claimed!r} is not enrolled")
        body = verify(host.secret, task, envelope)
        if task == HOST_HEARTBEAT:
            if body.get("name") != host.name:
                raise Refused(f"a heartbeat of host {host.name} announces {body.get('name')!r}")
            if abs(time.time() - float(envelope["sent_at"])) > HEARTBEAT_FRESH_S:
                raise Refused("a heartbeat sent more than 5 minutes from now")
        else:
            job = _job(session, body)
            if job is not None and job.attempts == body.get("attempt") \
                    and job.host_id != host.id:
                raise Refused(f"job {job.id}'s attempt {job.attempts} was not dispatched to "
                              f"host {host.name}")
    except Refused as refusal:
        _audit(session, task, claimed, host, envelope, str(refusal))
        return None
    return body


def _job(session: Session, body: Any) -> Job | None:
    """The job a message names, if any."""
    job_id = body.get("job_id") if isinstance(body, dict) else None
    return session.get(Job, job_id) if isinstance(job_id, int) else None


def _audit(session: Session, task: str, claimed: str, host: Host | None, envelope: Any,
           reason: str) -> None:
    """The refusal, in the audit log of the project of the job it named (else the lab's)."""
    job = _job(session, envelope.get("body") if isinstance(envelope, dict) else None)
    job_id = job.id if job is not None else None
    session.execute(insert(AuditEvent).values(
        at=get_clock().now(), project_id=job.project_id if job is not None else None,
        actor=f"host {claimed!r} (unverified)"[:400],
        entity_type="host", entity_id=host.id if host is not None else 0, action=REFUSED,
        before=None, after={"task": task, "claimed_host": claimed,
                            "job_id": job_id,
                            "reason": reason}))
