from typing import Annotated

from fastapi import APIRouter, Path, Query, Response, status
from fastapi.responses import PlainTextResponse
from sqlalchemy import select

from latlab.auth.dependencies import JobWriter, Reader, rate_limited
from latlab.core.db import DbSession
from latlab.core.errors import Conflict, NotFound, Unprocessable
from latlab.core.openapi import documented
from latlab.core.params import Id, Limit
from latlab.core.rate_limits import Use
from latlab.core.routing import ApiRoute
from latlab.experiments import export, service
from latlab.experiments.schemas import (
    ExpectationJudged,
    ExperimentDocument,
    ExperimentRead,
    ExperimentRunCreate,
    ExperimentRunRead,
    FigureRead,
    RunJob,
)
from latlab.models import Experiment, ExperimentRun, Host
from latlab.projects import service as projects

router = APIRouter(tags=["experiments"], route_class=ApiRoute)
NamePath = Annotated[str, Path(pattern=r"^[a-z][a-z0-9._-]{0,63}$")]


@router.post("/experiments", status_code=status.HTTP_201_CREATED, responses={
    **documented(Conflict, Unprocessable),
    200: {"model": ExperimentRead, "description": "The document unchanged: its latest version"}})
def save_experiment(body: ExperimentDocument, principal: JobWriter, session: DbSession,
                    response: Response) -> ExperimentRead:
    """Save an experiment: a changed document is its next version (201), the same document
    its latest version (200)."""
    experiment, new = service.save(session, projects.writable(principal.project), body,
                                   None if principal.user is None else principal.user.id)
    if not new:
        response.status_code = status.HTTP_200_OK
    return experiment_read(experiment)


@router.get("/experiments")
def list_experiments(principal: Reader, session: DbSession) -> list[ExperimentRead]:
    """The project's experiments, each at its latest version, by name."""
    return [experiment_read(e) for e in service.listed(session, principal.project_id)]


@router.get("/experiments/{name}", responses=documented(NotFound))
def read_experiment(name: NamePath, principal: Reader, session: DbSession,
                    version: Annotated[int | None, Query(ge=1, le=1_000_000)] = None
                    ) -> ExperimentRead:
    """An experiment at its latest version, or the one asked for."""
    return experiment_read(service.get(session, principal.project_id, name, version))


@router.post("/experiments/{name}/runs", status_code=status.HTTP_201_CREATED,
             responses=documented(NotFound, Conflict, Unprocessable),
             dependencies=rate_limited(Use.job_launches))
def run_experiment(name: NamePath, body: ExperimentRunCreate, principal: JobWriter,
                   session: DbSession) -> ExperimentRunRead:
    """Run the experiment's latest version: each of its jobs on hosts with `host_tags`. Once
    every job has ended, the lab judges each expectation; a job the lab refuses refuses the
    run, and nothing is launched."""
    project = projects.writable(principal.project)
    experiment = service.get(session, project.id, name)
    run = service.start(session, project, experiment, body,
                        None if principal.user is None else principal.user.id)
    return run_read(session, run, experiment)


@router.get("/experiments/{name}/runs", responses=documented(NotFound))
def list_experiment_runs(name: NamePath, principal: Reader, session: DbSession,
                         limit: Limit = 50) -> list[ExperimentRunRead]:
    """An experiment's runs (of every version), newest first."""
    versions = {e.id: e for e in session.scalars(select(Experiment).where(
        Experiment.project_id == principal.project_id, Experiment.name == name))}
    if not versions:
        raise NotFound(f"no experiment {name!r}")
    return [run_read(session, run, versions[run.experiment_id]) for run in session.scalars(
        select(ExperimentRun).where(ExperimentRun.experiment_id.in_(list(versions)))
        .order_by(ExperimentRun.id.desc()).limit(limit))]


@router.get("/experiments/{name}/runs/{run_id}", responses=documented(NotFound))
def read_experiment_run(name: NamePath, run_id: Id, principal: Reader,
                        session: DbSession) -> ExperimentRunRead:
    """A run of an experiment: its jobs and, once they have ended, every expectation
    judged and the lab's figures beside the reference."""
    return run_read(session, *_run(session, principal.project_id, name, run_id))


@router.get("/experiments/{name}/runs/{run_id}/markdown", response_class=PlainTextResponse,
            responses={**documented(NotFound), 200: {
                "content": {"text/markdown": {}},
                "description": "The run as Markdown: question, setup, expectations judged, "
                               "the lab's figures beside the reference, conclusions"}})
def experiment_run_markdown(name: NamePath, run_id: Id, principal: Reader,
                            session: DbSession) -> PlainTextResponse:
    """An experiment's run as a report in Markdown."""
    run, experiment = _run(session, principal.project_id, name, run_id)
    hosts = {name: None if job.host_id is None else session.get_one(Host, job.host_id).name
             for name, job in service.jobs_of(session, run).items()}
    return PlainTextResponse(export.markdown(
        ExperimentDocument.model_validate(experiment.document),
        run_read(session, run, experiment), hosts), media_type="text/markdown")


def _run(session: DbSession, project_id: int, name: str, run_id: int
         ) -> tuple[ExperimentRun, Experiment]:
    run = session.get(ExperimentRun, run_id)
    experiment = None if run is None else session.get(Experiment, run.experiment_id)
    if (run is None or experiment is None or run.project_id != project_id
            or experiment.name != name):
        raise NotFound(f"experiment {name!r} has no run {run_id}")
    return run, experiment


def experiment_read(experiment: Experiment) -> ExperimentRead:
    return ExperimentRead(**experiment.document, version=experiment.version,
                          created_at=experiment.created_at)


def run_read(session: DbSession, run: ExperimentRun, experiment: Experiment
             ) -> ExperimentRunRead:
    return ExperimentRunRead(
        id=run.id, experiment=experiment.name, version=experiment.version, status=run.status,
        host_tags=run.host_tags,
        jobs={name: RunJob(job_id=job.id, status=job.status.value, run_id=job.run_id)
              for name, job in service.jobs_of(session, run).items()},
        judgements=None if run.judgements is None else [
            ExpectationJudged(**j) for j in run.judgements],
        figures=None if run.figures is None else [FigureRead(**f) for f in run.figures],
        message=run.message, created_at=run.created_at, finished_at=run.finished_at)
