"""The chaos soak's checker (`latlab_stack.chaos`): after the lab settles, every property the lab
promises under faults, from the history and the lab's own records."""

import contextlib
import itertools
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

import latlab_stack as localstack
from latlab_stack.chaos.lab import PROGRAMS, TERMINAL, Receiver, SupervisedLab
from latlab_stack.chaos.workload import History

# A job ends within its timeout plus this: the watchdog's pickup (60 s) and silence (30 s)
# limits, its 5 s period, and one more attempt queued behind the others (a runner killed
# mid-job is tried again).
JOB_MARGIN_S = 240


# --- memory ---------------------------------------------------------------------------------

def pss_mib(lab: SupervisedLab) -> dict[str, float]:
    """Each program's memory: the proportional set size (PSS: a page shared by n processes
    counts 1/n in each) summed over its processes, Celery's pool children and Postgres's
    backends included, so memory they share (Postgres's buffers) is counted once."""
    def resident(pid: int) -> float:
        with contextlib.suppress(OSError, StopIteration):
            rollup = (Path("/proc") / str(pid) / "smaps_rollup").read_text().splitlines()
            return int(next(line for line in rollup if line.startswith("Pss:")).split()[1]) / 1024
        return 0.0  # ended meanwhile

    return {name: sum(map(resident, localstack.program_processes(pid))) if pid else 0.0
            for name, (_, pid) in lab.states().items()}


# --- the checker ----------------------------------------------------------------------------

@dataclass
class Verdict:
    figures: list[tuple[str, str]] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)

    def figure(self, name: str, value: Any) -> None:
        self.figures.append((name, str(value)))

    def require(self, holds: bool, name: str, detail: str) -> None:
        self.figures.append((f"[{'ok' if holds else 'VIOLATED'}] {name}", detail))
        if not holds:
            self.violations.append(f"{name}: {detail}")

    def table(self) -> str:
        width = max(len(name) for name, _ in self.figures)
        return "\n".join(f"{name:<{width}}  {value}" for name, value in self.figures)


def settle(lab: SupervisedLab, history: History, receiver: Receiver, timeout: float) -> float:
    """The quiet period: until every program runs, every job has ended and every breach's alert
    reached the receiver, or `timeout`; returns the seconds it took."""
    started = time.monotonic()
    time.sleep(10)
    breaches = [s.key for s in history.submissions if s.breach]
    while time.monotonic() - started < timeout:
        with contextlib.suppress(Exception):
            running = all(state == "RUNNING" for state, _ in lab.states().values())
            with psycopg.connect(lab.database_url, connect_timeout=3) as db:
                open_jobs = db.execute("select count(*) from job where status not in "
                                       "('succeeded', 'failed', 'cancelled', 'timed_out')"
                                       ).fetchone()
                alerted = db.execute(
                    "select count(*) from run r join alert a on a.run_id = r.id "
                    "where r.idempotency_key = any(%s)", (breaches,)).fetchone()
            opened = {m["alert_id"] for m in receiver.accepted if m["event"] == "opened"}
            if running and open_jobs == (0,) and alerted and alerted[0] <= len(opened):
                break
        time.sleep(2)
    return time.monotonic() - started


def check(lab: SupervisedLab, history: History, receiver: Receiver, quiet_s: float,
          pss_start: dict[str, float], flood: bool = False) -> Verdict:
    verdict = Verdict()
    with psycopg.connect(lab.database_url, connect_timeout=10) as db:
        stored: Counter[str] = Counter(dict(db.execute(
            "select idempotency_key, count(*) from run where idempotency_key = any(%s) "
            "group by idempotency_key", ([s.key for s in history.submissions],)).fetchall()))
        runs: dict[str, int] = dict(db.execute("select idempotency_key, id from run where "
                               "idempotency_key = any(%s)",
                               ([s.key for s in history.submissions],)).fetchall())
        jobs = db.execute("select id, status, attempts, timeout_s, extract(epoch from "
                          "coalesce(finished_at, now()) - created_at) from job").fetchall()
        alerts: dict[int, int] = dict(db.execute(
            "select run_id, id from alert where run_id = any(%s)", (list(runs.values()),)
        ).fetchall())
        delivered = {(alert_id, event): (status, attempts, ok) for alert_id, event, status,
                     attempts, ok in db.execute(
            "select n.alert_id, n.event, n.status, n.attempts, (select count(*) from "
            "delivery_attempt d where d.notification_id = n.id and d.ok) from notification n "
            "join channel c on c.id = n.channel_id where c.name = 'chaos receiver'")}

    subs = history.submissions
    acked = [s for s in subs if any(c is not None and 200 <= c < 300 for c in s.statuses)]
    for name, group in (("submissions (answered 2xx)", [s for s in subs if not s.flood]),
                        ("flood's submissions (2xx)", [s for s in subs if s.flood])):
        if group or not name.startswith("flood"):
            verdict.figure(name, f"{len(group)} ({sum(s in acked for s in group)}), "
                           f"{sum(len(s.statuses) for s in group)} attempts, "
                           f"{sum(s.statuses.count(None) for s in group)} without an answer")
    verdict.require(all(stored[s.key] == 1 for s in acked), "2xx stored exactly once",
                    f"{sum(stored[s.key] != 1 for s in acked)} of {len(acked)} not")
    duplicated = [s.key for s in subs if stored[s.key] > 1]
    lost = [s for s in subs if stored[s.key] == 0 and not any(
        c is not None and (c < 200 or c >= 300) for c in s.statuses)]
    verdict.require(not duplicated and not lost, "stored or answered non-2xx",
                    f"{len(duplicated)} duplicated, {len(lost)} neither stored nor refused; "
                    f"{sum(stored[s.key] == 0 for s in subs)} not stored")
    # Answered 4xx every time (a 429 the flood gave up on): the lab kept none of them.
    refused = [s for s in subs if s.statuses and all(
        c is not None and 400 <= c < 500 for c in s.statuses)]
    verdict.require(not any(stored[s.key] for s in refused), "refused (only 4xx) not stored",
                    f"{sum(stored[s.key] > 0 for s in refused)} of {len(refused)} stored")
    too_many = Counter(a.route for a in history.answers if a.status == 429)
    if flood:
        verdict.require(too_many["flood submit"] > 0, "the flood client gets 429s",
                        f"{too_many['flood submit']} 429s to the flood's "
                        f"{sum(len(s.statuses) for s in subs if s.flood)} attempts")
        verdict.require(not too_many["submit"], "the other CI clients get no 429",
                        f"{too_many['submit']} 429s")

    statuses = Counter(status for _, status, *_ in jobs)
    late = [(job_id, status, round(age)) for job_id, status, _, timeout_s, age in jobs
            if status not in TERMINAL or age > timeout_s + JOB_MARGIN_S]
    verdict.figure("jobs", f"{len(history.jobs)} launched, {len(history.cancels)} cancelled; "
                   f"by status: {dict(statuses)}; "
                   f"retried: {sum(attempts > 1 for _, _, attempts, _, _ in jobs)}")
    verdict.require(not late, f"jobs terminal within timeout + {JOB_MARGIN_S} s",
                    f"longest {max((age for *_, age in jobs), default=0):.0f} s; late: {late}")

    breaches = [s for s in subs if s.breach and s.key in runs]
    unalerted = [s.key[:12] for s in breaches if alerts.get(runs[s.key]) is None]
    got = Counter((m["alert_id"], m["event"]) for m in receiver.accepted)
    missed = [s.key[:12] for s in breaches if alerts.get(runs[s.key]) is not None
              and got[(alerts[runs[s.key]], "opened")] == 0]
    verdict.require(not unalerted and not missed, "every stored breach alerted",
                    f"{len(breaches)} breaches stored; without an alert {len(unalerted)}, "
                    f"alert never received {len(missed)}")
    twice = {k: n for k, n in got.items() if n > 1}
    # A kill between a POST and the record of its answer makes the message go again: Slack
    # does not de-duplicate, so the lab's promise is that a repeat shows. It is hidden when the
    # lab recorded fewer attempts than the receiver got, or a repeat does not say it may be one.
    hidden = {k: (n, delivered.get(k)) for k, n in got.items()
              if n > (delivered.get(k) or (None, 0, 0))[1]}
    unmarked = {k: n for k, n in twice.items() if sum(
        1 for m in receiver.accepted if (m["alert_id"], m["event"]) == k and m.get("may_repeat")
    ) < n - 1}
    verdict.require(not hidden and not unmarked, "no hidden duplicate deliveries",
                    f"{len(receiver.accepted)} messages accepted ({receiver.refused} refused by "
                    f"the receiver's faults); received more than once: {len(twice)}; of them "
                    f"more often than the lab recorded an attempt: {len(hidden)}, a repeat not "
                    f"saying it may be one: {len(unmarked)}")
    pending = Counter(status for status, _, _ in delivered.values())
    verdict.figure("deliveries (lab's records)", dict(pending))

    errors = [a for a in history.answers if a.status is not None and a.status >= 500
              and not (a.status == 503 and a.retry_after)]
    verdict.require(not errors, "no 5xx but 503 with Retry-After",
                    f"{Counter((a.route, a.status) for a in errors)}")
    by_route = Counter((a.route, a.status) for a in history.answers)
    for route in sorted({a.route for a in history.answers}):
        verdict.figure(f"answers: {route}", ", ".join(
            f"{status or 'none'} x{n}" for (r, status), n in sorted(
                by_route.items(), key=lambda item: str(item[0][1])) if r == route))

    for kind, (count, window) in sorted(longest_without_2xx(history).items()):
        verdict.figure(f"no 2xx for, during {kind}", f"{window:.1f} s longest ({count} faults)")
    skipped = [f for f in history.faults if f.note]
    verdict.figure("faults", f"{len(history.faults)} ({len(skipped)} not made: "
                   f"{Counter(f.note for f in skipped)})")
    verdict.figure("quiet period", f"{quiet_s:.0f} s")

    states = lab.states()
    verdict.require(all(state == "RUNNING" for state, _ in states.values()),
                    "every program running at the end",
                    ", ".join(f"{n} {s}" for n, (s, _) in states.items() if s != "RUNNING")
                    or "all")
    log = lab.log("supervisord")
    exits = Counter(name for name in PROGRAMS for line in log.splitlines()
                    if f"exited: {name} (" in line and "not expected" in line)
    killed = Counter(f.kind.split()[1] for f in history.faults
                     if f.kind.startswith("kill") and not f.note)
    verdict.figure("exits the nemesis did not cause", ", ".join(
        f"{name} {exits[name] - killed[name]}" for name in PROGRAMS
        if exits[name] > killed[name]) or "none")
    pss_end = pss_mib(lab)
    for name in PROGRAMS:
        if name in pss_start:
            verdict.figure(f"PSS {name}", f"{pss_start[name]:.0f} -> {pss_end.get(name, 0):.0f}"
                           " MiB")
    for name in ("alerts", "ingest", "runner"):
        deaths = lab.log(name).count("Unrecoverable error")
        if deaths:
            verdict.figure(f"{name} log: Unrecoverable error", deaths)
    return verdict


def longest_without_2xx(history: History) -> dict[str, tuple[int, float]]:
    """Per fault kind: how many, and the longest gap between two 2xx answers (to any client)
    that overlaps one of its faults."""
    times = sorted(a.at for a in history.answers
                   if a.status is not None and 200 <= a.status < 300)
    gaps = list(itertools.pairwise(times))
    result: dict[str, tuple[int, float]] = {}
    for kind in sorted({f.kind for f in history.faults if not f.note}):
        faults = [f for f in history.faults if f.kind == kind and not f.note]
        widest = max((b - a for a, b in gaps for f in faults if a <= f.end and b >= f.start),
                     default=0.0)
        result[kind] = (len(faults), widest)
    return result
