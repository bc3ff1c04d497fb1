"""`latlab`: the command line for CI and operators.

    latlab submit result.json                  submit a latlab.result/v1 file
    latlab submit --adapter go-bench --suite S --scenario C bench.txt
                                               submit a benchmark harness's own output
    latlab submit --profile 'client=rust:perf.folded' result.json
                                               with a CPU profile (folded stacks)
    latlab ensure-admin                        create the admin (make up uses it)
"""

import argparse
import hashlib
import json
import os
import secrets
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from latlab.analysis import reports
from latlab.auth import service
from latlab.auth.schemas import UserCreate, UserUpdate
from latlab.core.db import get_sessionmaker
from latlab.core.settings import get_settings
from latlab.models import Role, User
from latlab.projects import service as projects
from latlab_contract import parsers, pprof
from latlab_contract.result import SourceIn, StartPoint

DEFAULT_URL = "http://127.0.0.1:8000"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="latlab", description="latlab command line")
    commands = parser.add_subparsers(dest="command", required=True)

    submit = commands.add_parser(
        "submit", help="submit a latlab.result/v1 file, or a harness's output (--adapter)")
    submit.add_argument("files", nargs="+", type=Path, metavar="FILE",
                        help="the result file ('-' for standard input); with --adapter, one or "
                             "more outputs of the harness, each a trial (criterion: the "
                             "target/criterion directory)")
    submit.add_argument("--adapter", default="latlab",
                        help="the files' format: latlab (a latlab.result/v1 document, the "
                             f"default) or a harness's: {', '.join(sorted(parsers.PARSERS))}")
    submit.add_argument("--suite", help="with --adapter: the suite the run belongs to")
    submit.add_argument("--scenario", default="default", help="with --adapter (default: default)")
    submit.add_argument("--branch", help="with --adapter: the branch built")
    submit.add_argument("--commit", help="with --adapter: the commit built")
    submit.add_argument("--build-url", help="with --adapter: the CI job's address")
    submit.add_argument("--pull-request", type=int, help="with --adapter: the PR's number")
    submit.add_argument("--start-point", metavar="BRANCH[@COMMIT]",
                        help="with --adapter: where this branch started (main@9f1c2e7): until "
                             "it has history of its own, its runs are judged against that "
                             "branch's history up to that commit")
    submit.add_argument("--started-at", type=datetime.fromisoformat,
                        help="with --adapter: when the benchmark ran (ISO 8601; default: when "
                             "the harness wrote its output, the files' modification time, or "
                             "now for standard input)")
    submit.add_argument("--profile", action="append", default=[],
                        metavar="[LABEL=VALUE,...:]FILE",
                        help="a CPU profile of the series with these labels (all of them, "
                             "or none when the run has one series): folded stacks "
                             "('frame;frame count' lines: stackcollapse-perf, py-spy -f raw, "
                             "async-profiler's collapsed output) or a Go pprof file "
                             "(-cpuprofile); program=NAME and tool=NAME among the labels name "
                             "what was profiled (default: benchmark) and with what (default: "
                             "folded, or pprof); repeat for more")
    submit.add_argument("--unit", default="ns",
                        help="with --adapter hlog: the unit of the log's values (ns, us, ms, s)")
    submit.add_argument("--url", default=os.environ.get("LATLAB_URL", DEFAULT_URL),
                        help="the lab's address (env LATLAB_URL)")
    submit.add_argument("--token", default=os.environ.get("LATLAB_TOKEN"),
                        help="an API token with runs:write (and read for --summary/--junit; "
                             "env LATLAB_TOKEN)")
    submit.add_argument("--idempotency-key",
                        help="default: a SHA-256 of what is submitted, so a retried submit "
                             "stores once")
    submit.add_argument("--timeout", type=float, default=120.0)
    submit.add_argument("--fail-on", choices=["regression", "inconclusive", "never"],
                        default="never",
                        help="'regression': exit 1 when the verdict is fail (an SLA breach or "
                             "a regression tested with enough trials); 'inconclusive': also "
                             "when the trials could not settle a change")
    submit.add_argument("--summary", type=Path, metavar="FILE.md",
                        help="write the verdict as a Markdown table (a CI step summary, a PR "
                             "comment)")
    submit.add_argument("--junit", type=Path, metavar="FILE.xml",
                        help="write the gate as JUnit XML, a test case per gated metric and "
                             "series")

    commands.add_parser("ensure-admin", help="create the admin from LATLAB_ADMIN_EMAIL / "
                        "LATLAB_ADMIN_PASSWORD, or with a generated password")

    args = parser.parse_args(argv)
    if args.command == "submit":
        return _submit(args)
    return _ensure_admin()


class _Usage(Exception):
    """A command that cannot be carried out as given (a missing file or option, an unknown
    adapter): exit 2 with the message."""


class _Refused(Exception):
    """Output the adapter cannot read, refused before sending as the lab would refuse it:
    exit 1 with the message (its line or JSON path)."""


def _submit(args: argparse.Namespace) -> int:
    if not args.token:
        print("latlab: no token; pass --token or set LATLAB_TOKEN", file=sys.stderr)
        return 2
    if args.adapter == "latlab" and len(args.files) > 1:
        print("latlab: one latlab.result/v1 file at a time (several files need --adapter)",
              file=sys.stderr)
        return 2
    try:
        body = _read(args.files[0]) if args.adapter == "latlab" else _adapted(args)
        if args.profile:
            body = _with_profiles(body, args.profile)
    except _Usage as error:
        print(f"latlab: {error}", file=sys.stderr)
        return 2
    except _Refused as error:
        print(f"latlab: refused: {error}", file=sys.stderr)
        return 1
    key = args.idempotency_key or hashlib.sha256(body).hexdigest()
    base = args.url.rstrip("/")
    headers = {"Authorization": f"Bearer {args.token}"}
    try:
        response = httpx.post(
            f"{base}/api/v1/runs", content=body,
            headers={**headers, "Idempotency-Key": key, "Content-Type": "application/json"},
            timeout=args.timeout,
        )
    except httpx.HTTPError as error:
        print(f"latlab: cannot reach {args.url}: {error}", file=sys.stderr)
        return 3
    if response.status_code >= 400:
        print(f"latlab: rejected ({response.status_code}): {_message(response)}",
              file=sys.stderr)
        return 1
    result = response.json()
    _print_verdict(result)
    if args.summary or args.junit:
        status = _write_reports(args, result, base, headers)
        if status:
            return status
    return _exit_status(args, result.get("verdict"))


def _read(path: Path) -> bytes:
    try:
        return sys.stdin.buffer.read() if str(path) == "-" else path.read_bytes()
    except OSError as error:
        raise _Usage(f"cannot read {path}: {error.strerror}") from error


def _adapted(args: argparse.Namespace) -> bytes:
    """The harness's outputs read by its adapter (the api's own, `POST /runs?adapter=`) into
    one latlab.result/v1 document."""
    if not args.suite:
        raise _Usage("--suite is required with --adapter")
    try:
        parsers.get_parser(args.adapter)
        outputs = [(str(path), sys.stdin.read() if str(path) == "-"
                    else parsers.read_output(args.adapter, path)) for path in args.files]
        files = [path for path in args.files if str(path) != "-"]
        started_at = args.started_at or (
            datetime.fromtimestamp(min(path.stat().st_mtime for path in files), UTC) if files
            else datetime.now(UTC))
    except (parsers.ParseError, OSError) as error:
        raise _Usage(str(error)) from error
    if started_at.tzinfo is None:
        started_at = started_at.replace(tzinfo=UTC)
    try:
        run = parsers.adapt(
            args.adapter, outputs, suite=args.suite, scenario=args.scenario,
            started_at=started_at,
            source=SourceIn(kind="ci", commit=args.commit, branch=args.branch,
                            build_url=args.build_url, pull_request=args.pull_request,
                            start_point=None if args.start_point is None
                            else StartPoint.parse(args.start_point)),
            context=parsers.ParseContext(latency_unit=args.unit))
    except parsers.ParseError as error:
        raise _Refused(f"{args.adapter}: {error}") from error
    except (OSError, ValueError) as error:
        raise _Refused(str(error)) from error
    return run.model_dump_json(by_alias=True, exclude_none=True).encode()


def _with_profiles(body: bytes, specs: list[str]) -> bytes:
    """The document with each `--profile` added to its `profiles`; the lab checks them
    (each names one series, its lines are folded stacks)."""
    try:
        document = json.loads(body)
        series = [s.get("labels", {}) for s in document["series"]]
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise _Refused(f"--profile needs a latlab.result/v1 document with series ({error})"
                       ) from error
    for spec in specs:
        selector, _, name = spec.rpartition(":")
        try:
            wanted = dict(pair.split("=", 1) for pair in selector.split(",") if pair)
        except ValueError as error:
            raise _Usage(f"--profile {spec!r}: labels are LABEL=VALUE,...") from error
        program, tool = wanted.pop("program", "benchmark"), wanted.pop("tool", None)
        chosen = [labels for labels in series
                  if all(labels.get(k) == v for k, v in wanted.items())]
        if len(chosen) != 1:
            raise _Usage(f"--profile {spec!r}: the labels {wanted} pick {len(chosen)} of the "
                         f"run's series {series}, not one")
        try:
            data = Path(name).read_bytes()
        except OSError as error:
            raise _Usage(f"cannot read the profile {name}: {error.strerror}") from error
        if pprof.is_pprof(data):
            tool = tool or "pprof"
            try:
                folded = pprof.folded(data)
            except pprof.PprofError as error:
                raise _Refused(f"the profile {name}: {error}") from error
        else:
            tool, folded = tool or "folded", data.decode()
        document.setdefault("profiles", []).append(
            {"labels": chosen[0], "program": program, "tool": tool, "folded": folded})
    return json.dumps(document).encode()


def _print_verdict(result: dict[str, Any]) -> None:
    print(result["url"])
    print(f"verdict: {result.get('verdict')}", file=sys.stderr)
    for reason in result.get("reasons", []):
        print(f"  {reason['kind']}: {reports.series_name(reason['series'])} / {reason['metric']}: "
              f"{reason['message']}", file=sys.stderr)
    if result.get("compare_url"):
        print(f"compare: {result['compare_url']}", file=sys.stderr)


def _exit_status(args: argparse.Namespace, verdict: str | None) -> int:
    failing = {"regression": {"fail"}, "inconclusive": {"fail", "inconclusive"}}.get(
        args.fail_on, set())
    if verdict == "inconclusive" and "inconclusive" not in failing:
        print("inconclusive: not a failure (use --fail-on inconclusive to fail on it)",
              file=sys.stderr)
    return 1 if verdict in failing else 0


def _write_reports(args: argparse.Namespace, result: dict[str, Any], base: str,
                   headers: dict[str, str]) -> int:
    """The Markdown summary and the JUnit XML of the verdict, from the comparison with the
    baseline (GET /compare, which needs the token's read scope)."""
    compare = None
    # Judged against history, the evidence is the report (the run is read for its suite).
    judged = bool(result.get("gate_evidence"))
    path, params = f"/api/v1/runs/{result['id']}", dict[str, Any]()
    if not judged and result.get("baseline_run_id") is not None:
        path, params = "/api/v1/compare", {"baseline": result["baseline_run_id"],
                                           "candidate": result["id"]}
    try:
        response = httpx.get(f"{base}{path}", headers=headers, timeout=args.timeout,
                             params=params)
    except httpx.HTTPError as error:
        print(f"latlab: cannot reach {args.url}: {error}", file=sys.stderr)
        return 3
    if response.status_code >= 400:
        print(f"latlab: cannot read the {'comparison' if params else 'run'} "
              f"({response.status_code}): {_message(response)}", file=sys.stderr)
        return 1
    if params:
        compare = response.json()
        rows = reports.gate_rows(result, compare)
    elif judged:
        rows = reports.evidence_rows(result)
    else:  # the first run of its history: its values, with nothing to compare them with
        rows = reports.run_rows({**response.json(), "url": result["url"]},
                                result.get("gated_metrics", []))
    verdict = result.get("verdict") or "unjudged"
    suite = (compare["candidate"] if compare else response.json())["suite"]
    name = f"latlab.{suite}" if compare or judged else "latlab"
    links = {"run": result["url"]}
    if result.get("compare_url"):
        links["compare"] = result["compare_url"]
    skipped = None if compare or judged else (
        "no baseline: the first run of its suite, scenario and branch")
    if args.summary:
        lines = [f"- {key}: {link}" for key, link in links.items()]
        lines += [f"- {skipped}"] if skipped else []
        lines += [f"- warning: {warning}" for warning in (compare or {}).get("warnings", [])]
        _write(args.summary, reports.markdown(rows, title=f"latlab: {verdict}", lines=lines))
    if args.junit:  # nothing was judged without a baseline: one skipped case says why
        _write(args.junit, reports.junit(rows if compare or judged else [], name=name,
                                         timestamp=datetime.now(UTC),
                                         properties={"verdict": verdict, **links},
                                         skipped=skipped))
    return 0


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _message(response: httpx.Response) -> str:
    try:
        detail = response.json().get("detail")
    except (json.JSONDecodeError, AttributeError):
        return response.text[:2000]
    if isinstance(detail, list):
        return "; ".join(f"{p.get('path')}: {p.get('message')}" for p in detail)
    return str(detail)


def _ensure_admin() -> int:
    email = os.environ.get("LATLAB_ADMIN_EMAIL", "admin@latlab.local").strip().lower()
    password = os.environ.get("LATLAB_ADMIN_PASSWORD")
    with get_sessionmaker()() as session, session.begin():
        projects.ensure(session, get_settings().default_project)
        user = session.scalar(select(User).where(User.email == email))
        if user is None:
            generated = password is None
            password = password or secrets.token_urlsafe(12)
            service.create_user(session, UserCreate(email=email, password=password,
                                                    role=Role.admin, name="admin"))
            shown = password if generated else "(from LATLAB_ADMIN_PASSWORD)"
            print(f"admin created: {email}  password: {shown}")
        elif password is not None:
            service.update_user(session, user.id, UserUpdate(password=password, role=Role.admin,
                                                             is_active=True))
            print(f"admin: {email}  password: (from LATLAB_ADMIN_PASSWORD)")
        else:
            print(f"admin: {email}  password: unchanged (printed when it was created; "
                  "set LATLAB_ADMIN_PASSWORD to reset it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
