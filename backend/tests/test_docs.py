"""The docs cannot drift silently: what README.md and docs/**/*.md name exists.

- Every relative Markdown link resolves to a file or folder of the repository, and its
  `#anchor` to a heading of that file (GitHub's slugs: lower case, punctuation dropped,
  spaces as hyphens, `-1`, `-2` ... for repeats).
- Every `make TARGET` in inline code or a code block is a target of the Makefile.
- Every `latlab COMMAND [SUBCOMMAND]` in inline code or a code block is a command of the CLI's
  Typer app, and every `--option` after it on the same line (up to a pipe, `;`, `&&` or a
  comment) is an option of that command or of `latlab` itself (`--wide`). Upper-case words
  (`latlab --wide COMMAND`) are placeholders.
- Every API path is one the app serves, matched on its segments, a path parameter in the app
  (`{run_id}`) matching any segment the docs write there (`{id}`, `15`, `<slug>`, `N`). The
  docs write API paths two ways, and both are checked: with the `/api/v1` prefix anywhere in
  code (URLs in curl commands, `/api/v1/sla-rules`), or without it right after an HTTP method
  (`GET /runs/{id}/context`, `GET/PUT /retention`, `PATCH /channels/{id} {...}`), where the
  method must be one the path answers. A bare path without prefix or method (`/compare`) may
  be a dashboard page and is not checked. The paths are the OpenAPI document's, plus the
  routes the app serves outside it (`GET /metrics`, `/api/v1/docs`). The paths http-order's
  order server serves (`POST /order`, `POST /admin/stall`) are a program's, not the api's.
- Every repository path in inline code or a code block that starts with a top-level folder
  (`workers/suites/zmq/suite.toml`, `bench/precision.py`) or names a file at the root
  (`Makefile`) exists; `<placeholder>` and `*` match any name, and build outputs `make`
  or a bench creates (`frontend/dist`, `bench/records/bisect.jsonl`) are allowed.

Code blocks tagged `text` are a program's output, not commands, and are not read for
commands. docs/seeds.md is written by bench/seeds.py: only its links are checked.
"""

import re
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path

import pytest
import typer

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
GENERATED = {ROOT / "docs" / "seeds.md"}
TOP = sorted(p.name for p in ROOT.iterdir()
             if not p.name.startswith(".") and p.name not in {"node_modules"})
# Made by `make` or by a run, not kept in the repository: the dashboard's build, the browser
# test's screenshots, the records bench.bisect writes as its cases end.
BUILT = {"frontend/dist", "frontend/dist/", "frontend/tests/e2e/screenshots/",
         "bench/records/bisect.jsonl"}
# Paths a suite's own programs serve, not the api: http-order's server and its test hooks.
PROGRAMS = {("admin", "stall"), ("admin", "delay"), ("order",)}
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


# ---- reading Markdown ---------------------------------------------------------------------

def _blocks(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The prose with code blocks blanked out, and each code block with its tag."""
    prose, blocks, block, tag = [], [], None, ""
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            if block is None:
                block, tag = [], line.strip().strip("`").strip()
            else:
                blocks.append((tag, "\n".join(block)))
                block = None
            prose.append("")
        elif block is not None:
            block.append(line)
            prose.append("")
        else:
            prose.append(line)
    return "\n".join(prose), blocks


def _inline(prose: str) -> list[str]:
    """Inline code spans, a span broken over lines joined with a space."""
    return [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose)]


def _commands(text: str) -> list[str]:
    """What the docs write as commands: inline code, and the lines of code blocks not tagged
    `text`, continuation lines joined and comments dropped."""
    prose, blocks = _blocks(text)
    found = _inline(prose)
    for tag, block in blocks:
        if tag == "text":
            continue
        for line in block.replace("\\\n", " ").split("\n"):
            found.append(re.sub(r"(^|\s)#.*", "", line))
    return found


def _code(text: str) -> list[str]:
    """Every piece of code: inline spans and whole code blocks."""
    prose, blocks = _blocks(text)
    return _inline(prose) + [block for _, block in blocks]


def _slug(heading: str) -> str:
    heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", heading).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    prose, _ = _blocks(path.read_text())
    seen: dict[str, int] = {}
    anchors = set()
    for line in prose.split("\n"):
        if m := re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line):
            slug = _slug(m.group(1))
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


# ---- what the code has ----------------------------------------------------------------------

def _make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return {t for line in text.split("\n")
            if (m := re.match(r"^([A-Za-z][\w.-]*(?:\s+[A-Za-z][\w.-]*)*)\s*:(?!=)", line))
            for t in m.group(1).split()}


def _cli():  # the click command behind the Typer app
    from latlab_cli import app
    return typer.main.get_command(app)


def _options(command) -> set[str]:
    return {o for p in command.params if p.param_type_name == "option"
            for o in (*p.opts, *p.secondary_opts)}


def _routes() -> dict[tuple[str, ...], set[str]]:
    """Every path the app serves, split into segments, with its methods."""
    from latlab.main import app
    routes: dict[tuple[str, ...], set[str]] = {}
    for path, operations in app.openapi()["paths"].items():
        routes.setdefault(_segments(path), set()).update(m.upper() for m in operations)
    for route in app.routes:
        path = getattr(route, "path", None)
        if (path and not getattr(route, "include_in_schema", True)) or path in {
                "/api/v1/openapi.json", "/api/v1/docs"}:
            methods = getattr(route, "methods", None) or {"GET"}
            routes.setdefault(_segments(path), set()).update(methods)
    return routes


def _segments(path: str) -> tuple[str, ...]:
    path = re.split(r"[?#\s]", path, maxsplit=1)[0].rstrip("/.,;:)")
    if path.startswith("/api/v1"):
        path = path[len("/api/v1"):]
    return tuple(path.strip("/").split("/")) if path.strip("/") else ()


def _matches(template: tuple[str, ...], written: tuple[str, ...]) -> bool:
    return len(template) == len(written) and all(
        t == w or (t.startswith("{") and t.endswith("}"))
        for t, w in zip(template, written, strict=True))


# ---- the checks ---------------------------------------------------------------------------

def _docs() -> Iterator[tuple[str, Path, str]]:
    for path in DOCS:
        yield _name(path), path, path.read_text()


@pytest.mark.parametrize("name", [_name(p) for p in DOCS])
def test_relative_links_resolve(name: str) -> None:
    path = ROOT / name
    prose, _ = _blocks(path.read_text())
    prose = re.sub(r"`[^`]*`", "", prose)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose):
        if re.match(r"[a-z][\w+.-]*:", target):  # http:, https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists():
            broken.append(f"{target}: no {linked.relative_to(ROOT)}")
        elif anchor and (linked.is_dir() or anchor not in _anchors(linked)):
            broken.append(f"{target}: no heading #{anchor} in {_name(linked)}")
    assert not broken, f"{name}: " + "; ".join(broken)


def test_make_targets_exist() -> None:
    targets = _make_targets()
    unknown = [f"{name}: make {target}" for name, path, text in _docs() if path not in GENERATED
               for line in _commands(text)
               for target in re.findall(r"(?:^|[\s;&|(])make\s+([a-z][\w-]*)", line)
               if target not in targets]
    assert not unknown, "not targets of the Makefile: " + "; ".join(unknown)


def test_cli_commands_and_options_exist() -> None:
    root = _cli()
    unknown = []
    for name, path, text in _docs():
        if path in GENERATED:
            continue
        for line in _commands(text):
            for m in re.finditer(r"(?:^|[\s/|;&(])latlab((?:\s+[^\s|;&#)]+)*)", line):
                problem = _check_invocation(root, m.group(1).split())
                if problem:
                    unknown.append(f"{name}: `latlab{m.group(1)}`: {problem}")
    assert not unknown, "\n".join(unknown)


def _check_invocation(root, words: list[str]) -> str | None:
    command, path = root, ["latlab"]
    allowed = set(_options(root))
    for word in words:
        if word.startswith("--"):
            for option in word.split("=", 1)[0].split("/"):  # --base/--head: both
                if option not in allowed | _options(command) | {"--help"}:
                    return f"{' '.join(path)} has no option {option}"
        elif hasattr(command, "commands") and re.fullmatch(r"[a-z][a-z-]*", word) and not [
                p for p in command.params if p.param_type_name == "argument"]:
            if word not in command.commands:
                return f"{' '.join(path)} has no command {word}"
            command = command.commands[word]
            path.append(word)
        elif command is root:
            return None  # a placeholder (COMMAND) or no command at all
    return None


def test_api_paths_exist() -> None:
    routes = _routes()
    unknown = []
    for name, path, text in _docs():
        if path in GENERATED:
            continue
        for code in _code(text):
            for m in re.finditer(r"/api/v1(/[^\s'\"`]*)?", code):
                written = _segments(m.group(0).replace("...", ""))
                if written and not any(_matches(t, written) for t in routes):
                    unknown.append(f"{name}: {m.group(0)}")
            for m in re.finditer(r"\b((?:(?:GET|POST|PUT|PATCH|DELETE)/?)+)\s+(/[^\s`]*)", code):
                methods = set(m.group(1).strip("/").split("/"))
                written = _segments(m.group(2))
                if written in PROGRAMS:
                    continue
                served = set().union(*(ms for t, ms in routes.items() if _matches(t, written)))
                if not served:
                    unknown.append(f"{name}: {m.group(0)}")
                elif methods - served:
                    unknown.append(f"{name}: {m.group(0)} (served: {sorted(served)})")
    assert not unknown, "not paths of the api:\n" + "\n".join(unknown)


def test_repository_paths_exist() -> None:
    tops = "|".join(re.escape(t) for t in TOP)
    missing = []
    for name, path, text in _docs():
        if path in GENERATED:
            continue
        for code in _code(text):
            for m in re.finditer(rf"(?<![\w./~$-])((?:{tops})(?:/[\w.<>*{{}}@+-]*)*)", code):
                written = m.group(1).rstrip(".,:;")
                if written not in BUILT and not _exists(written):
                    missing.append(f"{name}: {written}")
    assert not missing, "no such file in the repository:\n" + "\n".join(missing)


def _exists(written: str) -> bool:
    if written in TOP:
        return True
    pattern = re.sub(r"<[^>]*>|\{[^}]*\}", "*", written).rstrip("/")
    if "*" not in pattern:
        return (ROOT / pattern).exists()
    parts = pattern.split("/")
    candidates = [ROOT]
    for part in parts:
        candidates = [c / child.name for c in candidates if c.is_dir()
                      for child in c.iterdir() if fnmatch(child.name, part)]
    return bool(candidates)
