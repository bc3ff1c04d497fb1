"""`latlab submit`: a latlab.result/v1 file, or a benchmark harness's own output, sent to the
lab as CI runs it; prints the run's address and its verdict."""

import hashlib
import json
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

import typer

from latlab_cli import forges
from latlab_cli.client import Lab
from latlab_cli.config import TokenOption, UrlOption, settings
from latlab_cli.errors import CliError, Refused, Rejected
from latlab_cli.output import write_report
from latlab_cli.params import parse_moment
from latlab_cli.verdicts import FailOnOption, exit_status
from latlab_contract import parsers, pprof, reports
from latlab_contract.result import SourceIn, StartPoint

_WITH_ADAPTER = "with --adapter: "


def submit(
    files: Annotated[list[Path], typer.Argument(
        metavar="FILE", show_default=False,
        help="The result file ('-' for standard input); with --adapter, one or more outputs "
             "of the harness, each a trial (criterion, gungraun: the target/criterion, "
             "target/gungraun directory).")],
    adapter: Annotated[str, typer.Option(
        help="The files' format: latlab (a latlab.result/v1 document) or a harness's: "
             f"{', '.join(sorted(parsers.PARSERS))}.")] = "latlab",
    suite: Annotated[str | None, typer.Option(
        help=f"{_WITH_ADAPTER}the suite the run belongs to.")] = None,
    scenario: Annotated[str, typer.Option(help=_WITH_ADAPTER)] = "default",
    branch: Annotated[str | None, typer.Option(help=f"{_WITH_ADAPTER}the branch built.")]
    = None,
    commit: Annotated[str | None, typer.Option(help=f"{_WITH_ADAPTER}the commit built.")]
    = None,
    build_url: Annotated[str | None, typer.Option(
        help=f"{_WITH_ADAPTER}the CI job's address.")] = None,
    pull_request: Annotated[int | None, typer.Option(
        help=f"{_WITH_ADAPTER}the PR's number.")] = None,
    start_point: Annotated[str | None, typer.Option(
        metavar="BRANCH[@COMMIT]",
        help=f"{_WITH_ADAPTER}where this branch started (main@9f1c2e7): until it has history "
             "of its own, its runs are judged against that branch's history up to that "
             "commit.")] = None,
    started_at: Annotated[str | None, typer.Option(
        metavar="ISO-8601",
        help=f"{_WITH_ADAPTER}when the benchmark ran (default: when the harness wrote its "
             "output, the files' modification time, or now for standard input).")] = None,
    profile: Annotated[list[str] | None, typer.Option(
        metavar="[LABEL=VALUE,...:]FILE",
        help="A CPU profile of the series with these labels (all of them, or none when the "
             "run has one series): folded stacks ('frame;frame count' lines: "
             "stackcollapse-perf, py-spy -f raw, async-profiler's collapsed output) or a Go "
             "pprof file (-cpuprofile); program=NAME and tool=NAME among the labels name what "
             "was profiled (default: benchmark) and with what (default: folded, or pprof); "
             "repeat for more.")] = None,
    unit: Annotated[str, typer.Option(
        help="With --adapter hlog: the unit of the log's values (ns, us, ms, s).")] = "ns",
    gate_metric: Annotated[list[str] | None, typer.Option(
        metavar="METRIC",
        help=f"{_WITH_ADAPTER}a metric the gate judges in place of the harness's headline "
             "(p99, throughput, ns_per_op, ...); repeat for more. A statistic the harness did "
             "not print (interpolated, shown ~) is judged only when named here.")] = None,
    errors_expected: Annotated[bool, typer.Option(
        help="The run is meant to fail some operations (a fault-injection test): its "
             "failures are shown but never fail the gate.")] = False,
    url: UrlOption = None,
    token: TokenOption = None,
    idempotency_key: Annotated[str | None, typer.Option(
        help="Default: a SHA-256 of what is submitted, so a retried submit stores once.")]
    = None,
    timeout: Annotated[float, typer.Option(
        help="Seconds to wait for the lab; a submission it could not answer (a connection "
             "refused or reset, 503 or 429) is sent again, with its key, within them.")]
    = 120.0,
    fail_on: FailOnOption = "never",
    summary: Annotated[Path | None, typer.Option(
        metavar="FILE.md",
        help="Write the verdict as a Markdown table (a CI step summary, a PR comment).")]
    = None,
    junit: Annotated[Path | None, typer.Option(
        metavar="FILE.xml",
        help="Write the gate as JUnit XML, a test case per gated metric and series.")] = None,
    comment: Annotated[bool, typer.Option(
        help="Post the verdict to the pull or merge request: one comment per request and "
             "suite, updated on every push, and a status on the head commit that fails when "
             "the verdict does (GitHub Actions: a check run, GITHUB_TOKEN with pull-requests: "
             "write and checks: write; GitLab CI: a note and a commit status, "
             "LATLAB_GITLAB_TOKEN with the api scope).")] = False,
) -> None:
    """Submit a latlab.result/v1 file, or a harness's output (--adapter); the token needs
    runs:write (and read for --summary/--junit)."""
    lab = Lab.with_token(settings(url, token), timeout)
    forge = forges.from_env() if comment else None  # before anything is sent
    if adapter == "latlab" and len(files) > 1:
        raise CliError("one latlab.result/v1 file at a time (several files need --adapter)")
    if adapter == "latlab":
        if gate_metric or errors_expected:
            raise CliError("--gate-metric and --errors-expected go with --adapter; a "
                           "latlab.result/v1 file says them itself (\"gate\", "
                           "\"errors_expected\")")
        body = _read(files[0])
    else:
        if not suite:
            raise CliError("--suite is required with --adapter")
        source = SourceIn(kind="ci", commit=commit, branch=branch, build_url=build_url,
                          pull_request=pull_request,
                          start_point=None if start_point is None
                          else _start_point(start_point))
        when = None if started_at is None else parse_moment("--started-at", started_at)
        body = _adapted(adapter, files, suite, scenario, source, when, unit, gate_metric or [],
                        errors_expected)
    if profile:
        body = _with_profiles(body, profile)
    key = idempotency_key or hashlib.sha256(body).hexdigest()
    try:
        result = lab.send("POST", "/runs", retry_for=timeout, content=body, headers={
            "Idempotency-Key": key, "Content-Type": "application/json"}).json()
    except Rejected as error:
        raise Refused(f"rejected ({error.status}): {error.detail}") from error
    _print_verdict(result)
    if summary or junit or forge:
        report = _report(lab, result)
        if summary:
            write_report(summary, report.markdown)
        if junit:
            write_report(junit, report.junit)
        if forge:
            for line in forge.post(report.suite, result.get("verdict"), report.markdown,
                                   result["url"]):
                print(f"  {line}", file=sys.stderr)
    raise typer.Exit(exit_status(fail_on, result.get("verdict")))


def _read(path: Path) -> bytes:
    try:
        return sys.stdin.buffer.read() if str(path) == "-" else path.read_bytes()
    except OSError as error:
        raise CliError(f"cannot read {path}: {error.strerror}") from error


def _start_point(text: str) -> StartPoint:
    try:
        return StartPoint.parse(text)
    except ValueError as error:
        raise Refused(str(error)) from error


def _adapted(adapter: str, files: list[Path], suite: str, scenario: str, source: SourceIn,
             started_at: datetime | None, unit: str, gate: list[str],
             errors_expected: bool) -> bytes:
    """The harness's outputs read by its adapter (the api's own, `POST /runs?adapter=`) into
    one latlab.result/v1 document."""
    try:
        parsers.get_parser(adapter)
        outputs = [(str(path), sys.stdin.read() if str(path) == "-"
                    else parsers.read_output(adapter, path)) for path in files]
        named = [path for path in files if str(path) != "-"]
        started_at = started_at or (
            datetime.fromtimestamp(min(path.stat().st_mtime for path in named), UTC) if named
            else datetime.now(UTC))
    except (parsers.ParseError, OSError) as error:
        raise CliError(str(error)) from error
    try:
        run = parsers.adapt(adapter, outputs, suite=suite, scenario=scenario,
                            started_at=started_at, source=source,
                            context=parsers.ParseContext(latency_unit=unit),
                            gate_metrics=gate or None)
    except parsers.ParseError as error:
        raise Refused(f"{adapter}: {error}") from error
    except (OSError, ValueError) as error:
        raise Refused(str(error)) from error
    run.errors_expected = errors_expected
    document: str = run.model_dump_json(by_alias=True, exclude_none=True)
    return document.encode()


def _with_profiles(body: bytes, specs: list[str]) -> bytes:
    """The document with each `--profile` added to its `profiles`; the lab checks them
    (each names one series, its lines are folded stacks)."""
    try:
        document = json.loads(body)
        series = [s.get("labels", {}) for s in document["series"]]
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise Refused(f"--profile needs a latlab.result/v1 document with series ({error})"
                      ) from error
    for spec in specs:
        selector, _, name = spec.rpartition(":")
        try:
            wanted = dict(pair.split("=", 1) for pair in selector.split(",") if pair)
        except ValueError as error:
            raise CliError(f"--profile {spec!r}: labels are LABEL=VALUE,...") from error
        program, tool = wanted.pop("program", "benchmark"), wanted.pop("tool", None)
        chosen = [labels for labels in series
                  if all(labels.get(k) == v for k, v in wanted.items())]
        if len(chosen) != 1:
            raise CliError(f"--profile {spec!r}: the labels {wanted} pick {len(chosen)} of the "
                           f"run's series {series}, not one")
        try:
            data = Path(name).read_bytes()
        except OSError as error:
            raise CliError(f"cannot read the profile {name}: {error.strerror}") from error
        if pprof.is_pprof(data):
            tool = tool or "pprof"
            try:
                folded = pprof.folded(data)
            except pprof.PprofError as error:
                raise Refused(f"the profile {name}: {error}") from error
        else:
            tool, folded = tool or "folded", data.decode()
        document.setdefault("profiles", []).append(
            {"labels": chosen[0], "program": program, "tool": tool, "folded": folded})
    return json.dumps(document).encode()


def _print_verdict(result: dict[str, Any]) -> None:
    print(result["url"])
    if result.get("replayed"):
        # The same document (or --idempotency-key) again: nothing new was stored.
        print(f"replayed: the lab already had this submission, run {result.get('id')}; "
              "nothing new stored, its verdict as it was given", file=sys.stderr)
    print(f"verdict: {result.get('verdict')}", file=sys.stderr)
    for reason in result.get("reasons", []):
        print(f"  {reports.reason_line(reason)}", file=sys.stderr)
    for note in result.get("notes", []):
        print(f"note: {note}", file=sys.stderr)
    if result.get("compare_url"):
        print(f"compare: {result['compare_url']}", file=sys.stderr)


@dataclass(frozen=True)
class _Report:
    suite: str
    markdown: str
    junit: str


def _report(lab: Lab, result: dict[str, Any]) -> _Report:
    """The verdict as Markdown and as JUnit XML, from the comparison with the baseline (GET
    /compare, which needs the token's read scope) or the run judged against its history."""
    compare = None
    # Judged against history, the evidence is the report (the run is read for its suite).
    judged = bool(result.get("gate_evidence"))
    path, params = f"/runs/{result['id']}", dict[str, Any]()
    if not judged and result.get("baseline_run_id") is not None:
        path, params = "/compare", {"baseline": result["baseline_run_id"],
                                    "candidate": result["id"]}
    try:
        answer = lab.get(path, **params)
    except Rejected as error:
        raise Refused(f"cannot read the {'comparison' if params else 'run'} ({error.status}): "
                      f"{error.detail}") from error
    if params:
        compare = answer
        rows = reports.gate_rows(result, compare)
    elif judged:
        rows = reports.evidence_rows(result)
    else:  # the first run of its history: its values, with nothing to compare them with
        rows = reports.run_rows({**answer, "url": result["url"]},
                                result.get("gated_metrics", [])) + reports.reason_rows(result)
    verdict = result.get("verdict") or "unjudged"
    run = compare["candidate"] if compare else answer
    suite = run["suite"]
    name = f"latlab.{suite}" if compare or judged else "latlab"
    links = {"run": result["url"]}
    if result.get("compare_url"):
        links["compare"] = result["compare_url"]
    links["trend"] = (result["url"].rsplit("/runs/", 1)[0] + "/trends?" + urlencode(
        {"suite": suite, "scenario": run["scenario"], "run": result["id"]}))
    skipped = None if compare or judged else (
        "no baseline: the first run of its suite, scenario and branch")
    lines = [f"- {key}: {link}" for key, link in links.items()]
    lines += [f"- {skipped}"] if skipped else []
    lines += [f"- warning: {warning}" for warning in (compare or {}).get("warnings", [])]
    lines += [f"- note: {note}" for note in result.get("notes", [])]
    # Nothing was judged without a baseline: one skipped case says why.
    return _Report(suite, reports.markdown(rows, title=f"latlab: {verdict}", lines=lines),
                   reports.junit(rows if compare or judged else reports.reason_rows(result),
                                 name=name, timestamp=datetime.now(UTC),
                                 properties={"verdict": verdict, **links}, skipped=skipped))
