"""What a confirmed regression of a repository's series does, as its project says
(`bisect_regressions`): automatic starts its bisection and links it from the alert; ask puts
on the alert the `latlab bisect` command that asks the same question; off, neither."""

import shlex
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.bisections import service
from latlab.bisections.schemas import BisectionCreate
from latlab.core.errors import Conflict, Unprocessable
from latlab.models import Alert, AlertState, Project, Run


def for_regression(session: Session, project: Project, run: Run, baseline: Run) -> None:
    """A regression of a repository's series confirmed between the baseline's commit and the
    run's: each of its open alerts gets its bisection (the project's `bisect_regressions`
    is automatic) or says how to start one (ask)."""
    if (project.bisect_regressions == "off" or run.repo is None or baseline.repo != run.repo
            or None in (run.commit, baseline.commit) or run.commit == baseline.commit):
        return
    assert run.commit is not None and baseline.commit is not None
    for alert in session.scalars(select(Alert).where(
            Alert.run_id == run.id, Alert.kind == "regression",
            Alert.state != AlertState.resolved)):
        request = BisectionCreate(
            repo=run.repo, good=baseline.commit, bad=run.commit, suite=run.suite,
            scenario=run.scenario, params=run.params, series=alert.series_labels,
            metric=alert.metric, host_tags=[] if run.host_tags is None else run.host_tags)
        if project.bisect_regressions == "ask":
            alert.message += f"; find the commit: {_command(request)}"
            continue
        try:
            bisection, _ = service.create(session, project, request, None)
        except (Unprocessable, Conflict) as error:
            alert.message += f"; not bisected: {error.detail}"
            continue
        alert.bisection_id = bisection.id
        alert.message += (f"; bisection {bisection.id} searches its "
                          f"{len(bisection.commits) - 1} commits")


def _command(request: BisectionCreate) -> str:
    """The `latlab bisect` command line that asks the request's question: the regression's
    params and series, so the search measures what regressed."""
    def text(value: Any) -> str:
        if isinstance(value, list):
            return ",".join(map(text, value))
        return str(value).lower() if isinstance(value, bool) else str(value)

    words = ["latlab", "bisect", "--repo", request.repo, "--good", request.good[:12], "--bad",
             request.bad[:12], "--suite", request.suite, "--scenario", request.scenario]
    words += [w for name, value in sorted(request.params.items())
              for w in ("-p", f"{name}={text(value)}")]
    words += [w for name, value in sorted(request.series.items())
              for w in ("--series", f"{name}={value}")]
    words += [w for tag in request.host_tags for w in ("--host-tag", tag)]
    return shlex.join([*words, "--metric", request.metric])
