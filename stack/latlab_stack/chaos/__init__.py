"""Chaos soak, Jepsen-style: a workload, a nemesis and a checker against the lab as `make up`
runs it (`python -m latlab_stack up`: supervisord over Postgres, Redis, the api, the
ingest and alerts workers, beat and this host's runner), in a throwaway data directory.

- Workload (threads): CI clients submitting runs with idempotency keys through the CLI's API
  client (`latlab_cli.client.Lab`, the one `latlab submit` uses), retrying as a CI step would
  (see `submit_retried`); one in four runs breaches an SLA rule whose channel is a real local
  HTTP receiver; short echo jobs launched, a third of them cancelled; readers on the
  dashboard's heaviest routes (runs list, run detail, compare, trends). With `--flood`, one
  more CI client on a token of its own submits from several threads as fast as the lab lets
  it, waiting only what a 429's Retry-After says (see `flood_client`).
- Nemesis (seeded): at random moments, SIGKILL of a program's main process, or SIGSTOP of its
  whole process group then SIGCONT a few seconds later, for the api, ingest, alerts, beat,
  runner, Redis and Postgres; the receiver stalls or answers 500 for a while. Faults overlap.
  supervisord (`autorestart=true`, Postgres and Redis included, `make up`'s config) restarts
  whatever is killed; the nemesis restarts nothing itself.
- Checker, after a quiet period (bounded) in which the lab settles: the properties in
  `check`; the figures as a table.

`python -m bench.chaos` runs it from the command line; `backend/tests/test_chaos.py` for three
minutes with a fixed seed."""

import contextlib
import os
import random
import shutil
import signal
import tempfile
import threading
import time
from pathlib import Path

import latlab_stack as localstack
from latlab_stack.chaos.check import Verdict, check, pss_mib, settle
from latlab_stack.chaos.lab import CLIENTS, PROGRAMS, Receiver, SupervisedLab, prepared_lab
from latlab_stack.chaos.workload import (
    SUBMIT_DEADLINE_S,
    WINDOW_S,
    Fault,
    History,
    workload,
)

FAULTS = (*(f"{action} {target}" for target in PROGRAMS for action in ("kill", "stop")),
          "stall receiver", "500 receiver")
# The soak's own budget, a small share of what a slow lab stores in a window (a 2-core
# machine limited to one CPU's time stored about 3.4 submissions a second, all clients
# together, and the flood 1.4 of them: under the default 2 a second, never refused), so the
# flood exceeds it on any machine while the paced CI clients stay inside it.
SOAK_BUDGET = 6


# --- the nemesis ----------------------------------------------------------------------------

def nemesis(lab: SupervisedLab, receiver: Receiver, history: History, rng: random.Random,
            until: float, kinds: tuple[str, ...], mean_gap_s: float) -> None:
    """A fault every `mean_gap_s` on average (exponential gaps), each in its own thread so
    faults overlap; never two at once on one target."""
    busy: set[str] = set()
    threads = []
    while True:
        time.sleep(rng.expovariate(1 / mean_gap_s))
        if time.monotonic() >= until:
            break
        free = [k for k in kinds if k.split()[1] not in busy]
        if not free:
            continue
        kind = rng.choice(free)
        target = kind.split()[1]
        busy.add(target)
        thread = threading.Thread(target=_inflict, args=(
            lab, receiver, history, kind, rng.uniform(2, 8), busy), daemon=True)
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join(30)


def _inflict(lab: SupervisedLab, receiver: Receiver, history: History, kind: str,
             seconds: float, busy: set[str]) -> None:
    action, target = kind.split()
    start = history.now()
    note = ""
    try:
        if target == "receiver":
            until = time.monotonic() + seconds
            if action == "stall":
                receiver.stalled_until = until
            else:
                receiver.failing_until = until
            time.sleep(seconds)
            return
        state, pid = lab.states()[target]
        if state != "RUNNING" or not pid:
            note = f"skipped: {state}"
            return
        if action == "kill":
            os.kill(pid, signal.SIGKILL)  # the main process, as a crash would
            seconds = 0
        else:
            frozen = localstack.program_processes(pid)  # the whole program, its children too
            for process in frozen:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process, signal.SIGSTOP)
            try:
                time.sleep(seconds)
            finally:
                for process in frozen:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(process, signal.SIGCONT)
    except Exception as error:  # a fault that could not be made is reported, not fatal
        note = f"{type(error).__name__}: {error}"
    finally:
        history.faults.append(Fault(kind, start, history.now(), note))
        busy.discard(target)


def run(minutes: float, seed: int, faults: tuple[str, ...] = FAULTS, clients: int = CLIENTS,
        readers: int = 2, mean_gap_s: float = 10.0, settle_s: float = 300.0,
        flood: bool = False, budget: int = SOAK_BUDGET) -> Verdict:
    rng = random.Random(seed)
    faults_rng = random.Random(rng.random())  # the same faults with the flood or without
    with prepared_lab(budget) as (lab, receiver):
        pss_start = pss_mib(lab)
        history = History()
        until = time.monotonic() + minutes * 60
        flooding = threading.Event()
        flooding.set()
        threads = workload(lab, history, rng, until, clients, readers,
                           flooding if flood else None, budget)
        threads.append(threading.Thread(target=nemesis, args=(
            lab, receiver, history, faults_rng, until, faults, mean_gap_s)))
        for thread in threads:
            thread.start()
        for thread in threads:
            # A submission may go on SUBMIT_DEADLINE_S past the end.
            thread.join(minutes * 60 + SUBMIT_DEADLINE_S + 60)
        quiet = settle(lab, history, receiver, settle_s)
        verdict = check(lab, history, receiver, quiet, pss_start, flood)
        verdict.figures.insert(0, ("run", f"{minutes:g} min, seed {seed}, "
                                   f"{'flood on' if flood else 'no flood'}, "
                                   f"{budget} submissions per token per {WINDOW_S:g} s, faults: "
                                   f"{', '.join(faults)}; logs were in {lab.data}"))
        if verdict.violations:
            keep = Path(tempfile.mkdtemp(prefix="latlab-chaos-logs-"))
            shutil.copytree(lab.data / "logs", keep / "logs")
            verdict.figure("logs kept", keep)
        return verdict
