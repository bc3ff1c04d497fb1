"""A try job's later stage joining the job's run (`jobs.stages`): its trials added after each
series' own, and each series' aggregates computed again over all its trials, as
`runs.submission` computes them when a run is submitted."""

from dataclasses import fields

from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.core.errors import Unprocessable
from latlab.models import Profile, Run, Series, Trial
from latlab.runs import profiles, store, submission
from latlab.runs.histogram import Histogram, Summary
from latlab.runs.keys import label_key
from latlab_contract.result import RunCreate


def extend(session: Session, run: Run, body: RunCreate) -> None:
    """Adds a later stage's trials to `run` (a try job measured in stages, `jobs.stages`):
    each series' new trials go after its own, and its summary, metrics and failures are
    computed again over all its trials as `submit` computes them, so one run holds the whole
    job. A body of another suite, scenario or set of series is refused; everything is read
    and checked before anything is written, so a refused body stores nothing."""
    if (body.suite, body.scenario) != (run.suite, run.scenario):
        raise Unprocessable(
            f"run {run.id} measured {run.suite}/{run.scenario}, this stage "
            f"{body.suite}/{body.scenario}: a stage adds trials to the run it continues")
    trials = submission.read_trials(body)
    series = {row.label_key: row for row in session.scalars(
        select(Series).where(Series.run_id == run.id))}
    _check_same_series(run, set(series), body)
    _check_profiles_new(session, run, series, body)
    rows = [series[label_key(item.labels)] for item in body.series]
    earlier = _stored_trials(session, run, rows)
    aggregates = [
        # Only the aggregates are taken: the series' keys (history, params) stay as stored.
        submission.series_row(run, row.id, item, [_trial_data_of(run, t) for t in earlier[row.id]]
                + item_trials, omitted={})
        for row, item, item_trials in zip(rows, body.series, trials, strict=True)]
    added = sum(len(item_trials) for item_trials in trials)
    trial_ids = iter(store.reserve_ids(session, "trial", added))
    store.copy_rows(session, "trial", store.TRIAL_COLUMNS, (
        submission.trial_row(next(trial_ids), run, row.id,
                             earlier[row.id][-1].index + 1 + index, data)
        for row, item_trials in zip(rows, trials, strict=True)
        for index, data in enumerate(item_trials)))
    for row, computed in zip(rows, aggregates, strict=True):
        for column in _AGGREGATES:
            setattr(row, column, computed[column])
        # The trials went in by COPY, behind the ORM: a collection loaded before is stale.
        session.expire(row, ["trials"])
    run.trial_count += added
    if body.finished_at is not None:
        run.finished_at = body.finished_at
    session.add_all(profiles.rows(run, {key: row.id for key, row in series.items()},
                                  body.profiles))
    session.flush()



# The columns of a series computed over its trials (`submission.series_row`), again when a
# stage adds some.
_AGGREGATES = ("summary", "summary_origin", "summary_uncorrected", "metrics", "failures")


def _check_same_series(run: Run, stored: set[str], body: RunCreate) -> None:
    given = {label_key(item.labels) for item in body.series}
    if given == stored:
        return
    differences = [f"{what} {', '.join(sorted(keys))}" for what, keys in (
        ("lacks the run's", stored - given), ("adds", given - stored)) if keys]
    raise Unprocessable(f"this stage's series are not run {run.id}'s: it "
                        f"{' and '.join(differences)}", "$.series")


def _check_profiles_new(session: Session, run: Run, series: dict[str, Series],
                        body: RunCreate) -> None:
    """A series keeps one profile of a program: a stage may not profile one again."""
    if not body.profiles:
        return
    taken = {(series_id, program) for series_id, program in session.execute(
        select(Profile.series_id, Profile.program).where(Profile.run_id == run.id))}
    for index, profile in enumerate(body.profiles):
        if (series[label_key(profile.labels)].id, profile.program) in taken:
            raise Unprocessable(f"run {run.id}'s series {label_key(profile.labels)} has a "
                                f"profile of {profile.program} already",
                                f"$.profiles[{index}]")


def _stored_trials(session: Session, run: Run, rows: list[Series]) -> dict[int, list[Trial]]:
    """The series' trials, by series id, in order."""
    stored: dict[int, list[Trial]] = {row.id: [] for row in rows}
    for trial in session.scalars(
            select(Trial).where(Trial.series_id.in_(list(stored)),
                                Trial.started_at == run.started_at)  # its partition
            .order_by(Trial.series_id, Trial.index)):
        stored[trial.series_id].append(trial)
    return stored


def _trial_data_of(run: Run, trial: Trial) -> submission.TrialData:
    """A stored trial as `submission.series_row` reads a submitted one, its histograms
    decoded again."""
    if trial.histogram is None:
        # Retention retires histograms after weeks; a run a stage extends is minutes old.
        raise Unprocessable(f"run {run.id}'s histograms were retired: its series cannot be "
                            "merged again with more trials")
    return submission.TrialData(
        histogram=Histogram.from_blob(trial.histogram),
        uncorrected=None if trial.histogram_uncorrected is None
        else Histogram.from_blob(trial.histogram_uncorrected),
        summary=Summary(**{field.name: getattr(trial, field.name) for field in fields(Summary)}),
        summary_uncorrected=None if trial.summary_uncorrected is None
        else Summary(**trial.summary_uncorrected),
        origin=trial.summary_origin, metrics=trial.metrics, failures=trial.failures,
        intervals=trial.intervals, tuning=trial.tuning, disturbed=trial.disturbed)
