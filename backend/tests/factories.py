"""What tests make again and again: result documents (`latlab.result/v1`), their trials,
their submission, users and tokens of each role, signed-in clients and alerts' messages."""

import copy
import os
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx
import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.alerts import lifecycle
from latlab.auth import service as auth_service
from latlab.auth.schemas import TokenCreate, UserCreate
from latlab.models import Alert, AlertState, Channel, Project, Role, Scope, Severity, User

# Every test user's password.
PASSWORD = "correct horse battery"
# Signed-in writes must declare a JSON body (CSRF); the test clients always do.
JSON = {"Content-Type": "application/json"}


def samples(n: int = 1000, seed: int = 7, scale_ns: float = 350_000) -> list[int]:
    return lognormal(np.random.default_rng(seed), scale_ns, 0.3, n)


def lognormal(rng: np.random.Generator, scale_ns: float, sigma: float, n: int) -> list[int]:
    """`n` latencies in whole ns, log-normal around `scale_ns` (`sigma`: the spread of their
    logarithms)."""
    return [int(v) for v in rng.lognormal(np.log(scale_ns), sigma, n)]


def trial(rng: np.random.Generator, scale_ns: float = 350_000, *, sigma: float = 0.2,
          n: int = 2000, throughput: tuple[float, float] | None = None,
          **fields: Any) -> dict[str, Any]:
    """A trial of `n` latencies (`lognormal`), then, given `throughput` (mean, standard
    deviation), a throughput metric drawn after them; `fields` are its others (metrics,
    intervals, disturbed)."""
    made: dict[str, Any] = {"latency": {"samples_ns": lognormal(rng, scale_ns, sigma, n)},
                            **fields}
    if throughput is not None:
        made["metrics"] = {"throughput": float(rng.normal(*throughput))}
    return made


def tail_trials(seed: int, tail_factor: float = 1.0, n: int = 5,
                samples: int = 20_000) -> list[dict[str, Any]]:
    """`n` trials of `samples` latencies each, and a throughput; `tail_factor` slows the
    slowest 3 % (the p99 region)."""
    out = []
    for index in range(n):
        rng = np.random.default_rng(seed * 100 + index)
        values = rng.lognormal(np.log(350_000), 0.25, samples)
        cut = np.quantile(values, 0.97)
        values = np.where(values > cut, values * tail_factor, values)
        out.append({"latency": {"samples_ns": [int(v) for v in values]},
                    "metrics": {"throughput": float(rng.normal(100_000, 500))}})
    return out


def trial_values(rng: np.random.Generator, n: int, level: float = 100.0,
                 sigma: float = 0.05) -> list[float]:
    """One metric's value in each of `n` trials, log-normal around `level`."""
    return [float(v) for v in rng.lognormal(np.log(level), sigma, n)]


def one_series(trials: list[dict[str, Any]], **labels: str) -> list[dict[str, Any]]:
    """A document's series: one, of `labels`, with `trials`."""
    return [{"labels": labels, "trials": trials}]


def result(
    *,
    series: list[dict[str, Any]] | None = None,
    suite: str = "http-order",
    scenario: str = "medium",
    branch: str = "main",
    commit: str = "9f1c2e7",
    host: str = "lab-07",
    **overrides: Any,
) -> dict[str, Any]:
    document: dict[str, Any] = {
        "schema": "latlab.result/v1",
        "suite": suite,
        "scenario": scenario,
        "params": {"orders": 1000, "connections": 50, "warmup": 100, "load": "closed"},
        "started_at": "2026-11-22T10:00:00Z",
        "finished_at": "2026-11-22T10:00:12Z",
        "source": {"kind": "ci", "commit": commit, "branch": branch,
                   "build_url": "https://ci.example/builds/1", "pull_request": 42},
        "host": {"name": host, "tags": ["hft-tuned"],
                 "fingerprint": {"kernel": "6.14.0", "governor": "performance", "thp": "never",
                                 "isolcpus": "8-27"}},
        "series": series if series is not None else [
            {"labels": {"client": "rust"},
             "trials": [{"latency": {"samples_ns": samples()},
                         "metrics": {"throughput": 115554.0, "success_rate": 1.0, "errors": 0}}]},
        ],
    }
    document.update(overrides)
    return document


def edited(document: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of `document` with the value at a dotted path (list indexes as numbers) replaced."""
    copied = copy.deepcopy(document)
    *parents, last = path.split(".")
    target: Any = copied
    for part in parents:
        target = target[int(part)] if part.isdigit() else target[part]
    if last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value
    return copied


def submit(client: httpx.Client, document: dict[str, Any], headers: dict[str, str] | None = None,
           *, key: str | None = None) -> dict[str, Any]:
    """Submits a run (`POST /runs`) through `client` (FastAPI's TestClient, an httpx.Client,
    or an httpx client of a live api), with an Idempotency-Key when given one (a replay
    answers 200), and returns what the api answered: the run stored (201)."""
    response = client.post("/api/v1/runs", json=document, headers={
        **(headers or {}), **({"Idempotency-Key": key} if key else {})})
    assert response.status_code in ((200, 201) if key else (201,)), response.text
    created: dict[str, Any] = response.json()
    return created


def sign_in(client: httpx.Client, email: str) -> None:
    response = client.post("/api/v1/auth/login", json={"email": email, "password": PASSWORD})
    assert response.status_code == 200, response.text


@dataclass
class Actors:
    """Users of each role and tokens of each scope, ready to use as request headers."""

    session: Session

    def user(self, role: Role = Role.member, email: str | None = None) -> User:
        return auth_service.create_user(self.session, UserCreate(
            email=email or f"{role.value}-{os.urandom(3).hex()}@lab.test",
            password=PASSWORD, role=role,
        ))

    def token(self, *scopes: Scope, expires_at: datetime | None = None) -> dict[str, str]:
        owner = self.user(Role.member)
        request = TokenCreate(name="ci", scopes=list(scopes or (Scope.runs_write, Scope.read)),
                              expires_at=expires_at)
        _, secret = auth_service.create_token(self.session, owner, request)
        return {"Authorization": f"Bearer {secret}"}

    def login(self, client: httpx.Client, role: Role = Role.member) -> User:
        user = self.user(role)
        sign_in(client, user.email)
        return user

    def submitter(self, base_url: str, timeout: float = 60) -> httpx.Client:
        """A client of the live api at `base_url` with a new token (runs:write, read), the
        session committed (its commits are real)."""
        token = self.token(Scope.runs_write, Scope.read)
        self.session.commit()
        return httpx.Client(base_url=base_url, timeout=timeout, headers=token)

    def signed_in(self, base_url: str, role: Role = Role.member, *, email: str | None = None,
                  timeout: float = 60) -> tuple[httpx.Client, User]:
        """A user of `role`, committed (the session's commits are real), and a client of the
        live api at `base_url` signed in as them."""
        user = self.user(role, email)
        self.session.commit()
        client = httpx.Client(base_url=base_url, timeout=timeout, headers=JSON)
        sign_in(client, user.email)
        return client, user


def allow_private_webhooks(session: Session, allowed: bool = True) -> None:
    """Lets the default project's channels reach private addresses (the tests' local
    receivers); an admin does this through PATCH /projects/default."""
    project = session.scalar(select(Project).where(Project.slug == "default"))
    assert project is not None
    project.allow_private_webhooks = allowed
    session.flush()


def webhook(session: Session, url: str, now: datetime, name: str = "hook") -> Channel:
    """A webhook channel of the default project to a local receiver at `url` (the project
    allows private targets)."""
    allow_private_webhooks(session)
    project_id = session.scalar(select(Project.id).where(Project.slug == "default"))
    assert project_id is not None
    channel = Channel(project_id=project_id, name=name, kind="webhook", url=url,
                      created_at=now)
    session.add(channel)
    session.flush()
    return channel


def notified(session: Session, channel: Channel, now: datetime, n: int = 1) -> list[int]:
    """`n` alerts opened, one message each to `channel`: the messages' ids."""
    ids = []
    for index in range(n):
        alert = Alert(project_id=channel.project_id, source="test",
                      history_key=os.urandom(8).hex(),
                      kind="sla", severity=Severity.warning, state=AlertState.open,
                      suite="echo", scenario="default", series_labels={}, metric="p99",
                      unit="ns", message=f"alert {index}", opened_at=now,
                      updated_at=now, occurrences=1, channel_ids=[channel.id])
        session.add(alert)
        session.flush()
        ids += [message.id for message in lifecycle.notify(session, alert, "opened")]
    return ids
