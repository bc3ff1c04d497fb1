"""What a scenario's trends page can draw: the series of its newest runs, those the newest
run failed on first, and their metrics, read as labels and metrics only."""

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.models import Run, Series
from latlab.runs import keys
from latlab.runs.overview import FAILING_REASONS
from latlab.suites import service as suite_service
from latlab_contract.vocabulary import LATENCY_KEYS, MetricInfo

# The newest runs of a scenario whose series and metrics its trends page offers.
CATALOGUE_RUNS = 5


@dataclass(frozen=True)
class Catalogue:
    """What a scenario's trends page can draw: the series of its newest runs (labels, and
    whether the newest run's verdict failed on it) and their metrics."""

    newest_run_id: int
    series: list[tuple[dict[str, str], bool]]
    metrics: list[MetricInfo]


def catalogue(session: Session, project_id: int, suite: str, scenario: str,
              run_id: int | None = None) -> Catalogue | None:
    """The union of the series of the scenario's newest runs (and of run `run_id`, a trend
    opened from it): the series the newest run failed on first (a regression, a suspected
    one, an SLA breach), then in the order met, newest run first; their metrics with the
    latency percentiles, by name. Labels and metrics only: a run of 400 series answers in
    one small read, where its details are megabytes. None: the scenario has no run."""
    runs = list(session.scalars(
        select(Run).where(Run.project_id == project_id, Run.suite == suite,
                          Run.scenario == scenario)
        .order_by(Run.started_at.desc(), Run.id.desc()).limit(CATALOGUE_RUNS)))
    if run_id is not None and all(run.id != run_id for run in runs):
        focus = session.get(Run, run_id)
        if focus is not None and focus.project_id == project_id:
            runs.insert(0, focus)
    if not runs:
        return None
    order = {run.id: index for index, run in enumerate(runs)}
    rows = sorted(session.execute(
        select(Series.run_id, Series.id, Series.labels, Series.metrics)
        .where(Series.run_id.in_(list(order)))).all(),
        key=lambda row: (order[row.run_id], row.id))
    failing = {keys.label_key(reason["series"]) for reason in runs[0].verdict_reasons or []
               if reason.get("kind") in FAILING_REASONS and isinstance(reason.get("series"), dict)}
    found: dict[str, tuple[dict[str, str], bool]] = {}
    for row in rows:
        key = keys.label_key(row.labels)
        found.setdefault(key, (row.labels, key in failing))
    series = [s for s in found.values() if s[1]] + [s for s in found.values() if not s[1]]
    vocabulary = suite_service.run_vocabulary(session, runs[0])
    names = list(LATENCY_KEYS) + sorted({name for row in rows for name in row.metrics or {}}
                                        - set(LATENCY_KEYS) - {"count"})
    return Catalogue(runs[0].id, series, [vocabulary.info(name) for name in names])
