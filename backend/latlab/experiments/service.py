"""Experiments: a project's named studies, saved as versioned documents, run as a set of jobs,
and judged once every job has ended: each expectation (`analysis.expectations`) on the trials
of the named series it compares, at each point of its axis when it has one."""

import statistics
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from latlab.analysis import expectations
from latlab.analysis.compare import trial_values
from latlab.analysis.stats import median_interval
from latlab.core.clock import get_clock
from latlab.core.errors import Conflict, NotFound
from latlab.experiments.schemas import (
    ExperimentDocument,
    ExperimentJob,
    ExperimentRunCreate,
    NamedSeries,
)
from latlab.jobs import service as job_service
from latlab.jobs.schemas import JobCreate
from latlab.models import Experiment, ExperimentRun, Job, JobStatus, Project, Run, Series
from latlab.models.job import ENDED_JOB
from latlab.runs import service as run_service
from latlab.suites import service as suite_service


def save(session: Session, project: Project, document: ExperimentDocument,
         created_by_id: int | None) -> tuple[Experiment, bool]:
    """The experiment with this document: its latest version when unchanged, else a new
    version (True)."""
    latest = latest_version(session, project.id, document.name)
    stored = document.model_dump(mode="json")
    if latest is not None and latest.document == stored:
        return latest, False
    experiment = Experiment(project_id=project.id, name=document.name,
                            version=1 if latest is None else latest.version + 1,
                            document=stored, created_by_id=created_by_id,
                            created_at=get_clock().now())
    try:
        with session.begin_nested():
            session.add(experiment)
    except IntegrityError as error:
        raise Conflict(f"experiment {document.name!r} was saved by someone else meanwhile "
                       f"(version {experiment.version}); read it and save again") from error
    return experiment, True


def latest_version(session: Session, project_id: int, name: str) -> Experiment | None:
    return session.scalar(select(Experiment).where(
        Experiment.project_id == project_id, Experiment.name == name)
        .order_by(Experiment.version.desc()).limit(1))


def get(session: Session, project_id: int, name: str, version: int | None = None
        ) -> Experiment:
    if version is None:
        found = latest_version(session, project_id, name)
    else:
        found = session.scalar(select(Experiment).where(
            Experiment.project_id == project_id, Experiment.name == name,
            Experiment.version == version))
    if found is None:
        raise NotFound(f"no experiment {name!r}" + (f" version {version}" if version else ""))
    return found


def listed(session: Session, project_id: int) -> list[Experiment]:
    """Each experiment's latest version, by name."""
    newest = (select(Experiment.name, func.max(Experiment.version).label("version"))
              .where(Experiment.project_id == project_id).group_by(Experiment.name)
              .subquery())
    return list(session.scalars(select(Experiment).join(newest, (
        Experiment.name == newest.c.name) & (Experiment.version == newest.c.version))
        .where(Experiment.project_id == project_id).order_by(Experiment.name)))


def start(session: Session, project: Project, experiment: Experiment,
          request: ExperimentRunCreate, created_by_id: int | None) -> ExperimentRun:
    """Launches every job of the experiment on hosts with `request.host_tags`; a job the lab
    refuses (no such host, a bad param) refuses the whole run, and nothing is stored."""
    document = ExperimentDocument.model_validate(experiment.document)
    jobs = {}
    for name, spec in document.jobs.items():
        (job, *_) = job_service.create_jobs(
            session, project, _job_request(spec, request.host_tags), created_by_id)
        jobs[name] = job.id
    run = ExperimentRun(project_id=project.id, experiment_id=experiment.id,
                        host_tags=request.host_tags, jobs=jobs, status="running",
                        created_by_id=created_by_id, created_at=get_clock().now())
    session.add(run)
    session.flush()
    return run


def _job_request(spec: ExperimentJob, host_tags: list[str]) -> JobCreate:
    return JobCreate(**spec.model_dump(exclude_none=True), host_tags=host_tags)


def advance(session: Session) -> list[ExperimentRun]:
    """Judges the running experiment runs whose jobs have all ended (failed when one did not
    succeed); the runs it ended."""
    ended = []
    for run in session.scalars(select(ExperimentRun).where(ExperimentRun.status == "running")
                               .with_for_update(skip_locked=True)):
        jobs = jobs_of(session, run)
        if any(job.status not in ENDED_JOB for job in jobs.values()):
            continue
        failed = {name: job for name, job in jobs.items()
                  if job.status is not JobStatus.succeeded}
        if failed:
            run.status = "failed"
            run.message = "; ".join(f"job {name} (#{job.id}) {job.status.value}"
                                    + (f": {job.error}" if job.error else "")
                                    for name, job in failed.items())
        else:
            experiment = session.get_one(Experiment, run.experiment_id)
            document = ExperimentDocument.model_validate(experiment.document)
            loaded = {name: run_service.load_run(session, job.run_id, run.project_id)
                      for name, job in jobs.items() if job.run_id is not None}
            run.judgements = judge(session, document, loaded)
            run.figures = figures(session, document, loaded)
            run.status = "done"
        run.finished_at = get_clock().now()
        ended.append(run)
    return ended


def jobs_of(session: Session, run: ExperimentRun) -> dict[str, Job]:
    """A run's jobs by their name in the experiment."""
    return jobs_of_runs(session, [run])[run.id]


def jobs_of_runs(session: Session, runs: list[ExperimentRun]) -> dict[int, dict[str, Job]]:
    """Each run's jobs by their name, read in one statement."""
    found = {job.id: job for job in session.scalars(select(Job).where(
        Job.id.in_([job_id for run in runs for job_id in run.jobs.values()])))}
    return {run.id: {name: found[job_id] for name, job_id in run.jobs.items()}
            for run in runs}


def runs_of(session: Session, project_id: int, name: str, limit: int
            ) -> list[tuple[ExperimentRun, Experiment]]:
    """An experiment's runs (of every version) with the version each ran, newest first."""
    versions = {e.id: e for e in session.scalars(select(Experiment).where(
        Experiment.project_id == project_id, Experiment.name == name))}
    if not versions:
        raise NotFound(f"no experiment {name!r}")
    return [(run, versions[run.experiment_id]) for run in session.scalars(
        select(ExperimentRun).where(ExperimentRun.experiment_id.in_(list(versions)))
        .order_by(ExperimentRun.id.desc()).limit(limit))]


def run_of(session: Session, project_id: int, name: str, run_id: int
           ) -> tuple[ExperimentRun, Experiment]:
    """A run of the project's experiment `name`, with the version it ran."""
    run = session.get(ExperimentRun, run_id)
    experiment = None if run is None else session.get(Experiment, run.experiment_id)
    if (run is None or experiment is None or run.project_id != project_id
            or experiment.name != name):
        raise NotFound(f"experiment {name!r} has no run {run_id}")
    return run, experiment


def judge(session: Session, document: ExperimentDocument, loaded: dict[str, Run]
          ) -> list[dict[str, Any]]:
    """Every expectation judged on the runs of the experiment's jobs (by job name)."""
    judged: list[dict[str, Any]] = []
    for text in document.expectations:
        expectation = expectations.parse(text)
        terms = [t for t in (expectation.left, expectation.right) if t is not None]
        left_run = loaded.get(document.series[expectation.left.series].job)
        unit = _unit(session, document, left_run, expectation.left.metric)
        shown_unit = None if expectation.right else unit
        matched = {term: _matching(loaded, document.series[term.series], expectation)
                   for term in terms}
        points = _points(expectation, matched)
        if not points:
            assert expectation.where is not None
            param, op, number = expectation.where
            judged.append(_judged(text, None, shown_unit, expectations.Judgement(
                "not-decided", None, None, None, f"no point of the axis: no series of "
                f"{expectation.left} carries {param} {op} {number:g}")))
        for point in points:
            trials, missing = {}, []
            try:
                for term in terms:
                    series = matched[term].get(point, [])
                    named = document.series[term.series]
                    if len(series) != 1:
                        missing.append(f"{term}: {len(series)} series of job {named.job} "
                                       f"match {named.labels}" + (
                                           f" at {expectation.where[0]} = {point:g}"
                                           if point is not None and expectation.where else ""))
                        continue
                    trials[term] = _values(document, loaded[named.job], series[0], term.metric)
                found = (expectations.judge(expectation, trials, unit) if not missing else
                         expectations.Judgement("not-decided", None, None, None,
                                                "; ".join(missing) + " (one each is needed)"))
            except ValueError as error:  # a bound whose unit the metric's cannot be, a
                # derived metric without its param
                found = expectations.Judgement("not-decided", None, None, None, str(error))
            judged.append(_judged(text, None if point is None or expectation.where is None
                                  else {expectation.where[0]: point}, shown_unit, found))
    return judged


def _judged(text: str, point: dict[str, float] | None, unit: str | None,
            found: expectations.Judgement) -> dict[str, Any]:
    """An expectation judged at a point, as a run keeps it (`ExpectationJudged`)."""
    return {"expectation": text, "point": point, "outcome": found.outcome,
            "value": found.value, "interval": found.interval, "decidable": found.decidable,
            "unit": unit, "reason": found.reason}


def figures(session: Session, document: ExperimentDocument, loaded: dict[str, Run]
            ) -> list[dict[str, Any]]:
    """Each reference figure beside the lab's: the median of its series' trials (the one
    series of its job's run carrying its labels), in the reference's unit (none when the
    metric's does not convert to it)."""
    found: list[dict[str, Any]] = []
    for reference in document.references:
        named = document.series[reference.series]
        run = loaded.get(named.job)
        candidates = [] if run is None else _carrying(run, named.labels)
        try:
            values = (_values(document, run, candidates[0], reference.metric)
                      if run is not None and len(candidates) == 1 else [])
        except ValueError:  # a derived metric without its param: no figure
            values = []
        unit = _unit(session, document, run, reference.metric)
        interval = median_interval(values)
        shown = [statistics.median(values), *(interval or ())] if values else []
        if reference.unit is not None:
            try:
                shown = [expectations.in_unit(v, unit, reference.unit) for v in shown]
            except ValueError:  # the metric's unit does not convert to the reference's
                shown = []
        lab = shown[0] if shown else None
        found.append({
            "series": reference.series, "metric": reference.metric,
            "source": reference.source, "reference": reference.value, "lab": lab,
            "interval": shown[1:] or None, "unit": reference.unit or unit,
            "ratio": None if lab is None or not reference.value else lab / reference.value,
            "derived": document.derived.get(reference.metric)})
    return found


def _values(document: ExperimentDocument, run: Run, series: Series, metric: str
            ) -> list[float]:
    """The metric's value in each counted trial of the series, measured or derived (a
    ValueError when a derived one's param has no number at the series)."""
    derived = _derived(document, metric)
    if derived is None:
        return trial_values(series, metric)
    return derived.values(trial_values(series, derived.metric),
                          {**(run.params or {}), **(series.labels or {})})


def _unit(session: Session, document: ExperimentDocument, run: Run | None, metric: str
          ) -> str | None:
    """The unit of `metric` in `run` (None without the run), a derived one's included."""
    if run is None:
        return None
    derived = _derived(document, metric)
    unit = suite_service.run_vocabulary(session, run).info(
        metric if derived is None else derived.metric).unit
    return unit if derived is None else derived.unit(unit)


def _derived(document: ExperimentDocument, metric: str) -> expectations.Derived | None:
    """How the document derives `metric`, or None for a measured one."""
    text = document.derived.get(metric)
    return None if text is None else expectations.parse_derived(text)


def _carrying(run: Run, labels: dict[str, str]) -> list[Series]:
    """The run's series carrying `labels` (others besides)."""
    return [s for s in run.series if all((s.labels or {}).get(k) == v for k, v in labels.items())]


def _matching(runs: dict[str, Run], named: NamedSeries, expectation: expectations.Expectation
              ) -> dict[float | None, list[Series]]:
    """The series of the named series' run carrying its labels, by the value of the
    expectation's axis label (None without an axis)."""
    run = runs.get(named.job)
    found: dict[float | None, list[Series]] = {}
    for series in [] if run is None else _carrying(run, named.labels):
        point: float | None = None
        if expectation.where is not None:
            try:
                point = float((series.labels or {})[expectation.where[0]])
            except (KeyError, ValueError):
                continue
        found.setdefault(point, []).append(series)
    return found


def _points(expectation: expectations.Expectation,
            matched: dict[Any, dict[float | None, list[Series]]]) -> list[float | None]:
    """The points an expectation is judged at: each axis value of its left series within its
    `for` clause (or its one point)."""
    if expectation.where is None:
        return [None]
    values = sorted(p for p in matched[expectation.left] if p is not None)
    return [p for p in values if expectation.applies({expectation.where[0]: p})]
