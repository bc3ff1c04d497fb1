"""`latlab`: the command line for CI and operators.

    latlab submit result.json [--url URL] [--token TOKEN]   submit a latlab.result/v1 file
    latlab ensure-admin                                      create the admin (make up uses it)
"""

import argparse
import hashlib
import json
import os
import secrets
import sys
from pathlib import Path

import httpx

DEFAULT_URL = "http://127.0.0.1:8000"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="latlab", description="latlab command line")
    commands = parser.add_subparsers(dest="command", required=True)

    submit = commands.add_parser("submit", help="submit a latlab.result/v1 JSON file")
    submit.add_argument("file", type=Path, help="the result file ('-' for standard input)")
    submit.add_argument("--url", default=os.environ.get("LATLAB_URL", DEFAULT_URL),
                        help="the lab's address (env LATLAB_URL)")
    submit.add_argument("--token", default=os.environ.get("LATLAB_TOKEN"),
                        help="an API token with runs:write (env LATLAB_TOKEN)")
    submit.add_argument("--idempotency-key",
                        help="default: the file's SHA-256, so a retried submit stores once")
    submit.add_argument("--timeout", type=float, default=120.0)
    submit.add_argument("--fail-on", choices=["regression", "inconclusive", "never"],
                        default="never",
                        help="'regression': exit 1 when the verdict is fail (an SLA breach or "
                             "a regression tested with enough trials); 'inconclusive': also "
                             "when the trials could not settle a change")

    commands.add_parser("ensure-admin", help="create the admin from LATLAB_ADMIN_EMAIL / "
                        "LATLAB_ADMIN_PASSWORD, or with a generated password")

    args = parser.parse_args(argv)
    if args.command == "submit":
        return _submit(args)
    return _ensure_admin()


def _submit(args: argparse.Namespace) -> int:
    if not args.token:
        print("latlab: no token; pass --token or set LATLAB_TOKEN", file=sys.stderr)
        return 2
    try:
        body = sys.stdin.buffer.read() if str(args.file) == "-" else args.file.read_bytes()
    except OSError as error:
        print(f"latlab: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 2
    key = args.idempotency_key or hashlib.sha256(body).hexdigest()
    try:
        response = httpx.post(
            f"{args.url.rstrip('/')}/api/v1/runs",
            content=body,
            headers={"Authorization": f"Bearer {args.token}", "Idempotency-Key": key,
                     "Content-Type": "application/json"},
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
    print(result["url"])
    verdict = result.get("verdict")
    print(f"verdict: {verdict}", file=sys.stderr)
    for reason in result.get("reasons", []):
        print(f"  {reason['kind']}: {reason['message']}", file=sys.stderr)
    if result.get("compare_url"):
        print(f"compare: {result['compare_url']}", file=sys.stderr)
    failing = {"regression": {"fail"}, "inconclusive": {"fail", "inconclusive"}}.get(
        args.fail_on, set())
    if verdict == "inconclusive" and "inconclusive" not in failing:
        print("inconclusive: not a failure (use --fail-on inconclusive to fail on it)",
              file=sys.stderr)
    return 1 if verdict in failing else 0


def _message(response: httpx.Response) -> str:
    try:
        detail = response.json().get("detail")
    except (json.JSONDecodeError, AttributeError):
        return response.text[:2000]
    if isinstance(detail, list):
        return "; ".join(f"{p.get('path')}: {p.get('message')}" for p in detail)
    return str(detail)


def _ensure_admin() -> int:
    from sqlalchemy import select

    from latlab.auth import service
    from latlab.auth.schemas import UserCreate, UserUpdate
    from latlab.core.db import get_sessionmaker
    from latlab.core.settings import get_settings
    from latlab.models import Role, User
    from latlab.projects import service as projects

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
