"""The adapters and the result contract fuzzed in process, bounded (`bench.fuzz` runs the same
mutations of the golden files against a running api, for as long as it is given).

Every mutated input must be refused with the error the api turns into a 4xx naming where
(`ParseError`, `Unprocessable`, `BodyInvalid`), or read into trials whose summaries hold what
every summary holds; any other exception is a bug, and a native crash would end the run."""

import random
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from latlab.core.errors import Unprocessable
from latlab.core.validation import BodyInvalid
from latlab.runs import submission
from latlab_contract import parsers
from latlab_contract.result import RunCreate, SourceIn
from latlab_stack.fuzz_inputs import (
    BREAKABLE,
    CONTRACT,
    SEED_FILES,
    break_rule,
    mutate,
    seeds,
    summary_problems,
)

POOLS = {name: seeds(name) for name in SEED_FILES}
STARTED = datetime(2026, 11, 24, tzinfo=UTC)


def _read(name: str, body: bytes) -> RunCreate | None:
    """The document the api would store, or None where it would refuse the input."""
    if name == CONTRACT:
        try:
            return submission.parse_result(body)
        except (BodyInvalid, Unprocessable):
            return None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    try:
        document = parsers.adapt_json(name, text, suite="fuzz", scenario="fuzz",
                                      started_at=STARTED, source=SourceIn(),
                                      context=parsers.ParseContext())
    except (parsers.ParseError, RecursionError):
        return None
    return RunCreate.model_validate_json(document)


@pytest.mark.parametrize("name", sorted(SEED_FILES))
@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(rng=st.randoms(use_true_random=False))
def test_mutated_input_is_refused_or_stored_sound(name: str, rng: random.Random) -> None:
    body = mutate(rng.choice(POOLS[name]), rng)
    document = _read(name, body)
    if document is None:
        return
    try:
        trials = submission.read_trials(document)
    except Unprocessable:
        return
    for series in trials:
        for trial in series:
            assert summary_problems(trial.summary.as_dict()) == [], body[:300]


def _stored(name: str, body: bytes) -> bool:
    document = _read(name, body)
    if document is None:
        return False
    try:
        submission.read_trials(document)
    except Unprocessable:
        return False
    return True


@pytest.mark.parametrize("name", BREAKABLE)
def test_rule_breaking_input_is_refused(name: str) -> None:
    """Every golden file with one rule broken (a negative time or rate, percentiles out of
    order, zero iterations, an empty name): none is stored."""
    rng = random.Random(44)
    stored, tried = [], 0
    for index, seed in enumerate(POOLS[name]):
        if not _stored(name, seed):
            continue  # a golden file of a case the adapter refuses anyway
        for _ in range(8):
            broken = break_rule(name, seed, rng)
            if broken is None:
                break
            tried += 1
            rule, body = broken
            if _stored(name, body):
                stored.append(f"seed {index}: {rule}")
    assert not stored, sorted(set(stored))
    assert tried, f"no rule-breaking mutation applies to {name}'s golden files"
