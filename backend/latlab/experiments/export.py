"""An experiment's run as Markdown that reads like the reports it stands for: the question, the
jobs as they ran (suite, scenario, params, host, run), every expectation as the lab judged it
with its interval, the reference figures beside the lab's, and the conclusions. Every number
is the run's; nothing is typed in."""

import json
from typing import Any

from latlab.experiments.schemas import ExperimentDocument, ExperimentRunRead

OUTCOME = {"holds": "holds", "does-not-hold": "**does not hold**", "not-decided": "not decided"}


def markdown(document: ExperimentDocument, run: ExperimentRunRead,
             hosts: dict[str, str | None]) -> str:
    """The run of `document` (its version `run.version`); `hosts`: each job's host name."""
    lines = [f"# {document.title}", "",
             f"*Experiment `{document.name}` version {run.version}, run {run.id} "
             f"({run.status}), launched {run.created_at:%Y-%m-%d %H:%M} UTC"
             + (f", ended {run.finished_at:%Y-%m-%d %H:%M} UTC" if run.finished_at else "")
             + ".*", ""]
    if document.question:
        lines += ["## Question", "", document.question, ""]
    lines += ["## Setup", "", "| job | suite | scenario | params | trials | host | run |",
              "|---|---|---|---|---|---|---|"]
    for name, spec in document.jobs.items():
        job = run.jobs.get(name)
        params = ", ".join(f"{k}={_param(v)}" for k, v in spec.params.items()) or "-"
        lines.append(f"| {name} | {spec.suite} | {spec.scenario} | {params} | "
                     f"{spec.repetitions} | {hosts.get(name) or '-'} | "
                     f"{'#' + str(job.run_id) if job and job.run_id else '-'} |")
    lines.append("")
    if run.message:
        lines += [f"This run did not finish: {run.message}.", ""]
    if document.derived:
        lines += ["Derived metrics, computed from each trial's measured figure (not measured "
                  "themselves):", "", *(f"- `{name}` = {text}" for name, text
                                        in document.derived.items()), ""]
    if run.judgements is not None:
        lines += ["## Expectations", "",
                  "| expectation | at | judged | value [95 % interval] | decides from | why |",
                  "|---|---|---|---|---|---|"]
        for judged in run.judgements:
            at = ", ".join(f"{k} = {v:g}" for k, v in (judged.point or {}).items()) or "-"
            value = "-" if judged.value is None else _number(judged.value, judged.unit)
            if judged.interval is not None:
                value += (f" [{_number(judged.interval[0], judged.unit)}, "
                          f"{_number(judged.interval[1], judged.unit)}]")
            decides = "-" if judged.decidable is None else f"{100 * judged.decidable:.1f} %"
            lines.append(f"| `{judged.expectation}` | {at} | {OUTCOME[judged.outcome]} | "
                         f"{value} | {decides} | {judged.reason} |")
        lines.append("")
    if run.figures:
        lines += ["## The lab's figures beside the reference", "",
                  "| series | metric | reference | source | lab [95 % interval] "
                  "| lab / reference |",
                  "|---|---|---|---|---|---|"]
        for figure in run.figures:
            lab = "-" if figure.lab is None else _number(figure.lab, figure.unit)
            if figure.interval is not None:
                lab += (f" [{_number(figure.interval[0], figure.unit)}, "
                        f"{_number(figure.interval[1], figure.unit)}]")
            ratio = "-" if figure.ratio is None else f"x{figure.ratio:.2f}"
            metric = figure.metric + (" (derived)" if figure.derived else "")
            lines.append(f"| {figure.series} | {metric} | "
                         f"{_number(figure.reference, figure.unit)} | {figure.source} | {lab} "
                         f"| {ratio} |")
        lines.append("")
    if document.conclusions:
        lines += ["## Conclusions", "", document.conclusions, ""]
    return "\n".join(lines)


def _number(value: float, unit: str | None) -> str:
    return f"{value:.4g}" + (f" {unit}" if unit else "")


def _param(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)
