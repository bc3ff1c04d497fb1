"""The experiments shipped in examples/experiments (the seed reports, as the reports ran them)
are documents the api saves and jobs it launches: each validates, each job's suite has its
scenario and takes its params, each named series is one the job's axes make, each expectation
and reference names a metric the suite reports, and each job fits in the lab's longest
timeout."""

import tomllib
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest

from latlab.analysis.expectations import parse, parse_derived
from latlab.experiments.schemas import ExperimentDocument
from latlab.jobs.service import MAX_TIMEOUT_S, validate_params
from latlab_contract.estimate import series_contexts
from latlab_contract.params import merge_params
from latlab_contract.vocabulary import LATENCY_KEYS
from latlab_workers.suites import SUITES_DIR, load_suite

SHIPPED = sorted((Path(__file__).resolve().parents[2] / "examples" / "experiments").glob(
    "*.toml"))


def test_the_seed_reports_are_shipped() -> None:
    assert {path.stem for path in SHIPPED} >= {
        "report-000-slow-link", "report-000-lossy", "report-001-order-api", "report-002-zco",
        "report-003-minitb"}


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.stem)
def test_a_shipped_experiment_is_one_the_lab_runs(path: Path) -> None:
    document = ExperimentDocument.model_validate(tomllib.loads(path.read_text()))
    assert document.name == path.stem
    made: dict[str, list[dict[str, str]]] = {}
    reported: dict[str, set[str]] = {}
    for name, job in document.jobs.items():
        runner = load_suite(SUITES_DIR / job.suite)
        suite = runner.info()
        assert job.scenario in suite.scenarios, (name, job.scenario)
        params = merge_params(suite.params_schema, suite.scenarios[job.scenario].params,
                              job.params)
        validate_params(suite.params_schema, params)
        made[name] = [plan.labels for plan in runner.plan(params)]  # as the runner labels them
        reported[name] = {*LATENCY_KEYS, *suite.metrics, *(  # and what its adapters add
            metric for program in runner.programs.values() if program.output
            for metric in getattr(import_module(
                f"latlab_contract.parsers.{program.output.replace('-', '_')}"), "METRICS", {}))}
        estimate = suite.estimate_s(series_contexts(suite.axes, params), job.repetitions)
        assert estimate is not None and estimate < MAX_TIMEOUT_S, (name, estimate)
    for text in document.derived.values():  # computed from what some job measures
        assert any(parse_derived(text).metric in metrics for metrics in reported.values()), text
    for metrics in reported.values():
        metrics |= set(document.derived)
    for name, series in document.series.items():
        assert any(_carries(labels, series.labels) for labels in made[series.job]), (
            f"series {name}: no series of job {series.job} carries {series.labels}")
    terms = [term for text in document.expectations
             for term in (parse(text).left, parse(text).right) if term is not None]
    used = [(t.metric, t.series) for t in terms] + [
        (r.metric, r.series) for r in document.references]
    for metric, series_name in used:
        assert metric in reported[document.series[series_name].job], (metric, series_name)


def _carries(labels: dict[str, str], wanted: dict[str, Any]) -> bool:
    return all(labels.get(key) == value for key, value in wanted.items())
