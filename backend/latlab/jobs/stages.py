"""A try job measured in stages until it is decided (`analysis.tries`): its first stage runs
the job's repetitions; while a look at all its trials so far leaves it undecided, the same job
is queued again, pinned to its host, to measure as many trials again as the next look needs
(the builds are the host's already), and the runner's next result adds its trials to the
job's one run (`runs.extension.extend`). It stops at a decision, at its last look, or when
the next stage would take it past its cap of lab time (each stage's time is measured: the
next one's is the last one's per trial, times its trials).

`job.stages`: {"looks": trials a side at each look, "cap_s": lab seconds or null,
"measured": [{"trials", "seconds"} per stage], "first_attempt": the stage's first attempt}.
`jobs.service.measure_more` queues the next stage; a stage's lost attempt is retried as any
job's is (`watchdog.MAX_ATTEMPTS` counted within the stage)."""

from datetime import datetime
from typing import Any

from latlab.analysis.tries import LOOKS
from latlab.models import Job


def plan(first: int, max_minutes: int | None) -> dict[str, Any]:
    """The stages of a try job whose first stage measures `first` trials a side."""
    return {"looks": [first * n for n in LOOKS],
            "cap_s": None if max_minutes is None else 60 * max_minutes,
            "measured": [], "first_attempt": 1}


def measured(job: Job) -> int:
    """Trials a side the job has measured in its finished stages."""
    return int(sum(stage["trials"] for stage in (job.stages or {}).get("measured", [])))


def look(job: Job) -> tuple[int, int]:
    """The look the job's latest result is (1-based) and how many it may take."""
    stages = job.stages or {}
    return len(stages.get("measured", [])), len(stages.get("looks", []))


def spent_s(job: Job) -> float:
    """Lab seconds its finished stages took (builds included)."""
    return float(sum(stage["seconds"] for stage in (job.stages or {}).get("measured", [])))


def record(job: Job, started_at: datetime, finished_at: datetime | None) -> None:
    """Adds the stage that just came back: its trials a side and its lab time."""
    assert job.stages is not None
    stage = {"trials": job.repetitions,
             "seconds": round(((finished_at or started_at) - started_at).total_seconds(), 1)}
    job.stages = {**job.stages, "measured": [*job.stages["measured"], stage]}


def next_stage(job: Job) -> tuple[int | None, str]:
    """The trials a side the next stage measures, or None and why the job stops there."""
    assert job.stages is not None
    looks, done = job.stages["looks"], job.stages["measured"]
    if len(done) >= len(looks):
        return None, f"its last look ({looks[-1]} trials a side)"
    more = looks[len(done)] - sum(stage["trials"] for stage in done)
    cap = job.stages["cap_s"]
    spent = spent_s(job)
    projected = done[-1]["seconds"] / done[-1]["trials"] * more
    if cap is not None and spent + projected > cap:
        return None, (f"its cap of lab time ({cap / 60:g} min: {spent / 60:.1f} min spent, "
                      f"the next stage would take about {projected / 60:.1f} min more)")
    return more, ""
