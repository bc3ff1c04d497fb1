from typing import Annotated

from fastapi import APIRouter, Path, Query, Response, status
from fastapi.responses import PlainTextResponse

from latlab.auth.dependencies import JobWriter, Reader, rate_limited
from latlab.core.db import DbSession
from latlab.core.errors import Conflict, NotFound, Unprocessable
from latlab.core.openapi import documented
from latlab.core.params import Id, Limit
from latlab.core.rate_limits import Use
from latlab.core.routing import ApiRoute
from latlab.experiments import export, service
from latlab.experiments.schemas import (
    NAME_PATTERN,
    ExpectationJudged,
    ExperimentDocument,
    ExperimentRead,
    ExperimentRunCreate,
    ExperimentRunRead,
    FigureRead,
    RunJob,
)
from latlab.jobs import service as job_service
from latlab.models import Experiment, ExperimentRun, Job
from latlab.projects import service as projects

router = APIRouter(tags=["experiments"], route_class=ApiRoute)
NamePath = Annotated[str, Path(pattern=NAME_PATTERN)]


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
    return run_read(run, experiment, service.jobs_of(session, run))


@router.get("/experiments/{name}/runs", responses=documented(NotFound))
def list_experiment_runs(name: NamePath, principal: Reader, session: DbSession,
                         limit: Limit = 50) -> list[ExperimentRunRead]:
    """An experiment's runs (of every version), newest first."""
    runs = service.runs_of(session, principal.project_id, name, limit)
    jobs = service.jobs_of_runs(session, [run for run, _ in runs])
    return [run_read(run, experiment, jobs[run.id]) for run, experiment in runs]


@router.get("/experiments/{name}/runs/{run_id}", responses=documented(NotFound))
def read_experiment_run(name: NamePath, run_id: Id, principal: Reader,
                        session: DbSession) -> ExperimentRunRead:
    """A run of an experiment: its jobs and, once they have ended, every expectation
    judged and the lab's figures beside the reference."""
    run, experiment = service.run_of(session, principal.project_id, name, run_id)
    return run_read(run, experiment, service.jobs_of(session, run))


@router.get("/experiments/{name}/runs/{run_id}/markdown", response_class=PlainTextResponse,
            responses={**documented(NotFound), 200: {
                "content": {"text/markdown": {}},
                "description": "The run as Markdown: question, setup, expectations judged, "
                               "the lab's figures beside the reference, conclusions"}})
def experiment_run_markdown(name: NamePath, run_id: Id, principal: Reader,
                            session: DbSession) -> PlainTextResponse:
    """An experiment's run as a report in Markdown."""
    run, experiment = service.run_of(session, principal.project_id, name, run_id)
    jobs = service.jobs_of(session, run)
    hosts = {job_name: job_service.names(session, job)[0] for job_name, job in jobs.items()}
    return PlainTextResponse(export.markdown(
        ExperimentDocument.model_validate(experiment.document),
        run_read(run, experiment, jobs), hosts), media_type="text/markdown")


def experiment_read(experiment: Experiment) -> ExperimentRead:
    return ExperimentRead(**experiment.document, version=experiment.version,
                          created_at=experiment.created_at)


def run_read(run: ExperimentRun, experiment: Experiment, jobs: dict[str, Job]
             ) -> ExperimentRunRead:
    return ExperimentRunRead(
        id=run.id, experiment=experiment.name, version=experiment.version, status=run.status,
        host_tags=run.host_tags,
        jobs={name: RunJob(job_id=job.id, status=job.status.value, run_id=job.run_id)
              for name, job in jobs.items()},
        judgements=None if run.judgements is None else [
            ExpectationJudged(**j) for j in run.judgements],
        figures=None if run.figures is None else [FigureRead(**f) for f in run.figures],
        message=run.message, created_at=run.created_at, finished_at=run.finished_at)
