"""What the lab knows of each suite, kept from runners' heartbeats: its metrics, the metrics
its CI gate judges and its SLA templates. A suite's own folder is the only place that names
them; the api learns them when a host advertises the suite."""

from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from latlab.core.clock import get_clock
from latlab.models import Run, Suite
from latlab_contract import SlaTemplate, SuiteInfo
from latlab_contract.vocabulary import DEFAULT_GATE, Vocabulary

# A session's suite definitions, read once: a request asks for its suite's metrics and params
# several times, and the identity map holds rows weakly, so each ask read the row again (a
# trend read its suite's definition three times).
_DEFINITIONS = "latlab.suite-definitions"


def record(session: Session, suites: list[SuiteInfo]) -> None:
    """Keeps the latest definition of each advertised suite."""
    now = get_clock().now()
    known: dict[str, SuiteInfo | None] = session.info.get(_DEFINITIONS, {})
    for suite in suites:
        known.pop(suite.id, None)
        values = {"version": suite.version, "definition": suite.model_dump(mode="json"),
                  "advertised_at": now}
        session.execute(insert(Suite).values(id=suite.id, **values)
                        .on_conflict_do_update(index_elements=[Suite.id], set_=values))


def definition(session: Session, suite_id: str) -> SuiteInfo | None:
    known: dict[str, SuiteInfo | None] = session.info.setdefault(_DEFINITIONS, {})
    if suite_id not in known:
        row = session.get(Suite, suite_id)
        known[suite_id] = None if row is None else SuiteInfo.model_validate(row.definition)
    return known[suite_id]


def vocabulary(session: Session, suite_id: str) -> Vocabulary:
    """The metrics of a suite: generic ones and those it declares."""
    known = definition(session, suite_id)
    if known is None:
        return Vocabulary()
    return Vocabulary().extended({k: v.model_dump() for k, v in known.metrics.items()})


def run_vocabulary(session: Session, run: Run) -> Vocabulary:
    """The metrics of a run: its suite's, then what the submission declared itself."""
    return vocabulary(session, run.suite).extended(run.metric_info)


def omitted_params(session: Session, suite_id: str) -> dict[str, Any]:
    """Params a suite added after runs were stored (`x-history-key = "unless-default"` in
    its suite.toml), with their defaults: at its default such a param is left out of a
    run's params key, so the runs made before it existed keep being its history."""
    known = definition(session, suite_id)
    if known is None:
        return {}
    properties = known.params_schema.get("properties", {})
    return {name: spec["default"] for name, spec in properties.items()
            if spec.get("x-history-key") == "unless-default" and "default" in spec}


def gate(session: Session, run: Run) -> tuple[str, ...]:
    """The metrics the CI gate judges for a run: its suite's (when a host advertised it),
    else what the submission asked (an adapter's headline), else p99 and throughput."""
    known = definition(session, run.suite)
    if known is not None:
        return tuple(known.gate)
    return tuple(run.gate) if run.gate else DEFAULT_GATE


def templates(session: Session) -> list[tuple[str, SlaTemplate]]:
    """Every suite's SLA templates, with the suite they belong to."""
    rows = session.scalars(select(Suite).order_by(Suite.id))
    return [(row.id, template) for row in rows
            for template in SuiteInfo.model_validate(row.definition).sla_templates]
