"""Comparing two runs: series matched by labels, per metric both sides, the change and a
direction-aware verdict from the trials (`stats.compare`), and what makes two hosts' numbers
hard to compare."""

import json
from dataclasses import dataclass, field
from typing import Any

from latlab.analysis.stats import Comparison, compare
from latlab.core.errors import Unprocessable
from latlab.models import Run, Series
from latlab.runs.keys import label_key
from latlab_contract.fingerprints import HARNESS_COMPARABILITY_KEYS, differences
from latlab_contract.vocabulary import (
    LATENCY_KEYS,
    SUMMARY_PERCENTILES,
    Direction,
    Vocabulary,
    tail_reliable,
)

# Summary columns compared per trial (the min, one sample and often the timer's floor, is
# shown, not judged), and the percentile each tail key stands for.
COMPARED = tuple(key for key in LATENCY_KEYS if key != "min")


TAIL_PERCENTILES = {key: q for key, q in SUMMARY_PERCENTILES.items() if key != "p50"}


@dataclass(frozen=True)
class MetricComparison:
    metric: str
    label: str
    unit: str
    direction: Direction
    comparison: Comparison
    baseline_values: tuple[float, ...]  # the metric's value in each trial
    candidate_values: tuple[float, ...]
    reliable: bool = True

    @property
    def baseline_trials(self) -> int:
        return len(self.baseline_values)

    @property
    def candidate_trials(self) -> int:
        return len(self.candidate_values)


@dataclass
class SeriesComparison:
    labels: dict[str, Any]  # the labels the two series were matched on
    baseline_series_id: int
    candidate_series_id: int
    baseline_labels: dict[str, Any]
    candidate_labels: dict[str, Any]
    metrics: list[MetricComparison] = field(default_factory=list)


@dataclass
class RunComparison:
    baseline: Run
    candidate: Run
    series: list[SeriesComparison]
    unmatched_baseline: list[dict[str, Any]]
    unmatched_candidate: list[dict[str, Any]]
    warnings: list[str]


class AmbiguousSelection(Unprocessable):
    pass


def reliable(series: Series, metric: str) -> bool:
    """Whether every trial of the series has enough samples beyond a tail percentile
    (`tail_reliable`) for its value to be judged; other metrics always are."""
    percentile = TAIL_PERCENTILES.get(metric)
    return percentile is None or all(tail_reliable(t.count, percentile) for t in series.trials)


def trial_values(series: Series, metric: str) -> list[float]:
    """The metric's value in each trial that counts (a disturbed trial does not)."""
    counted = [t for t in series.trials if t.disturbed is None]
    if metric in LATENCY_KEYS:
        return [float(getattr(trial, metric)) for trial in counted]
    return [float(t.metrics[metric]) for t in counted if metric in t.metrics]


def compare_runs(baseline: Run, candidate: Run, vocabulary: Vocabulary, *,
                 baseline_labels: dict[str, str] | None = None,
                 candidate_labels: dict[str, str] | None = None,
                 min_effect: float = 0.05) -> RunComparison:
    """Series of the baseline against series of the candidate, matched by labels.

    Without selectors, series with equal labels are compared. With them, each side keeps the
    series carrying its selector's labels ({"profile": "baseline"} vs {"profile": "tuned"},
    possibly of one run), matched on their other labels: the seeds' "baseline vs tuned" and
    "zig vs go" tables, point by point."""
    pairs = matched_series(baseline, candidate, baseline_labels, candidate_labels)
    matched: list[SeriesComparison] = []
    for labels, other, series in pairs.matched:
        result = SeriesComparison(labels, other.id, series.id, other.labels, series.labels)
        names = [*COMPARED, *sorted(set(other.metrics) & set(series.metrics))]
        for name in names:
            old, new = trial_values(other, name), trial_values(series, name)
            if not old or not new:
                continue
            info = vocabulary.info(name)
            reliable = name not in TAIL_PERCENTILES or all(
                tail_reliable(t.count, TAIL_PERCENTILES[name])
                for t in [*other.trials, *series.trials])
            result.metrics.append(MetricComparison(
                metric=name, label=info.label, unit=info.unit, direction=info.direction,
                comparison=compare(old, new, info.direction, min_effect=min_effect),
                baseline_values=tuple(old), candidate_values=tuple(new), reliable=reliable,
            ))
        matched.append(result)
    return RunComparison(
        baseline=baseline, candidate=candidate, series=matched,
        unmatched_baseline=pairs.unmatched_baseline,
        unmatched_candidate=pairs.unmatched_candidate,
        warnings=comparability_warnings(baseline, candidate),
    )


@dataclass(frozen=True)
class SeriesPairs:
    matched: list[tuple[dict[str, Any], Series, Series]]  # labels matched on, both series
    unmatched_baseline: list[dict[str, Any]]
    unmatched_candidate: list[dict[str, Any]]


def matched_series(baseline: Run, candidate: Run, baseline_labels: dict[str, str] | None,
                   candidate_labels: dict[str, str] | None) -> SeriesPairs:
    """The two runs' series paired by labels. Without selectors, series with equal labels
    pair. With them, each side keeps the series carrying its selector's labels, paired on
    their other labels (the runs may be one)."""
    selectors = (baseline_labels or {}, candidate_labels or {})
    ignored = set(selectors[0]) | set(selectors[1])
    before = _matchable(baseline, selectors[0], ignored, "baseline")
    after = _matchable(candidate, selectors[1], ignored, "candidate")
    return SeriesPairs(
        matched=[(json.loads(key), before[key], series) for key, series in after.items()
                 if key in before],
        unmatched_baseline=[s.labels for k, s in before.items() if k not in after],
        unmatched_candidate=[s.labels for k, s in after.items() if k not in before])


def _matchable(run: Run, selector: dict[str, str], ignored: set[str],
               side: str) -> dict[str, Series]:
    """The run's series carrying the selector's labels, by their labels outside `ignored`."""
    chosen: dict[str, Series] = {}
    for series in run.series:
        if any(series.labels.get(k) != v for k, v in selector.items()):
            continue
        key = label_key({k: v for k, v in series.labels.items() if k not in ignored})
        if key in chosen:
            raise AmbiguousSelection(
                f"the {side} selector {selector} picks several series of run {run.id} with "
                f"the other labels {json.loads(key)}: name more labels",
                f"query.{side}_labels")
        chosen[key] = series
    return chosen


def _params_keys(run: Run) -> set[str]:
    """The run's params as its histories key them (a param a suite added later is left out
    at its default: `keys.params_key`), or its raw params for a run without series."""
    return ({series.params_key for series in run.series}
            or {json.dumps(run.params, sort_keys=True, default=str)})


def comparability_warnings(baseline: Run, candidate: Run) -> list[str]:
    warnings = []
    if baseline.suite != candidate.suite or baseline.scenario != candidate.scenario:
        warnings.append(f"different benchmarks: {baseline.suite}/{baseline.scenario} vs "
                        f"{candidate.suite}/{candidate.scenario}")
    if _params_keys(baseline) != _params_keys(candidate):
        differing = sorted(name for name in {*baseline.params, *candidate.params}
                           if baseline.params.get(name) != candidate.params.get(name))
        warnings.append("the two runs used different parameters: " + ", ".join(
            f"{name} {baseline.params.get(name, '(unset)')!r} vs "
            f"{candidate.params.get(name, '(unset)')!r}" for name in differing))
    warnings += [f"host {key} differs: {before} vs {after}" for key, before, after in
                 differences(baseline.host_fingerprint, candidate.host_fingerprint)]
    warnings += [f"the harness's {key} differs: {before} vs {after}" for key, before, after in
                 differences(_harness_context(baseline), _harness_context(candidate),
                             HARNESS_COMPARABILITY_KEYS)]
    return warnings


def _harness_context(run: Run) -> dict[str, Any]:
    context: dict[str, Any] = (run.harness or {}).get("context", {})
    return context
