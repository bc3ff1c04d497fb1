"""The api's metric registry decides units and better directions (compare, alerts, dashboard);
every suite's declared metrics must agree with it, or a suite would be judged the wrong way."""

import pytest

from latlab.runs import metrics
from latlab_workers.suites import load_suites

DECLARED = [(suite.id, name, spec) for suite in load_suites().values()
            for name, spec in suite.metrics.items()]


@pytest.mark.parametrize(("suite", "name", "spec"), DECLARED,
                         ids=[f"{suite}.{name}" for suite, name, _ in DECLARED])
def test_a_suite_metric_means_what_the_registry_says(suite, name, spec) -> None:
    assert name in metrics.KNOWN, f"{suite}: add '{name}' to latlab.runs.metrics.KNOWN"
    known = metrics.KNOWN[name]
    assert (spec.unit, spec.direction) == (known.unit, known.direction), suite
