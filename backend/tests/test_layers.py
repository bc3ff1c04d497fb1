"""The layers of the code, written once: a room may import the rooms below it, never one above.

Lowest first. `latlab_contract` (the wire types, the metric vocabulary and the reports) is
below everything; the runner (`latlab_workers`) and the CLI (`latlab_cli`) stand beside the
backend and import only the contract; inside the backend, each domain folder may import those
listed before it; `latlab_stack` (`make up`'s supervisor, and the throwaway labs of the tests
and benchmarks) stands above all of them, the server it starts and the CLI it drives it with.
A domain's HTTP edge (`router.py`, `dependencies.py`) serves requests, so it
may import any domain (it is below only the modules that assemble the app and the processes).
Imports are read from the source (every `import` and `from ... import`, wherever it stands),
so a late import counts.
"""

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = [
    ("latlab_contract",),
    ("latlab.models",),
    ("latlab.core",),
    ("latlab.audit",),
    ("latlab.projects",),
    ("latlab.repos",),
    ("latlab.auth",),
    ("latlab.suites",),
    ("latlab.hosts",),
    ("latlab.runs",),
    ("latlab.analysis",),
    ("latlab.annotations",),
    ("latlab.sharing",),
    ("latlab.alerts",),
    ("latlab.jobs",),
    ("latlab.bisections",),
    ("latlab.experiments",),
    ("latlab.ingest",),
    ("latlab.monitoring",),
    ("http",),  # every domain's router.py and dependencies.py
    ("latlab.api", "latlab.worker", "latlab.main", "latlab.admin"),
    (STACK := "latlab_stack",),  # make up's supervisor, above the server it starts
]
# Packages of their own beside the backend, which meet it only in the contract.
BESIDE = ("latlab_workers", "latlab_cli")
HTTP_EDGE = ("router", "dependencies")


def room(module: str) -> str:
    """The room of a module: `latlab.runs.service` -> `latlab.runs`; a domain's router and
    dependencies -> `http`."""
    parts = module.split(".")
    if parts[0] != "latlab":
        return parts[0]
    if len(parts) >= 3 and parts[-1] in HTTP_EDGE:
        return "http"
    return ".".join(parts[:2])


def rank(name: str) -> int | None:
    return next((i for i, layer in enumerate(LAYERS) if name in layer), None)


def modules() -> Iterator[tuple[str, Path]]:
    for base, package in ((ROOT / "backend", "latlab"), (ROOT / "contract", "latlab_contract"),
                          (ROOT / "workers", "latlab_workers"), (ROOT / "cli", "latlab_cli"),
                          (ROOT / "stack", "latlab_stack")):
        for path in sorted((base / package).rglob("*.py")):
            parts = path.relative_to(base).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            yield name, path


def imported(path: Path, module: str) -> Iterator[tuple[int, str]]:
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolved against the module's package
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{node.module}" if node.module else anchor
            else:
                base = node.module or ""
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}" if not node.module else base


def wrong_way(name: str, path: Path) -> list[str]:
    """Every import of `name` that runs against the layers."""
    mine = room(name)
    found = []
    for line, target in imported(path, name):
        theirs = room(target)
        if theirs == mine or not target.startswith("latlab"):
            continue
        where = f"{path.relative_to(ROOT)}:{line} ({mine}) imports {target} ({theirs})"
        if mine == STACK:
            continue  # above everything: it starts the server and drives it as CI would
        if mine in BESIDE or theirs in BESIDE:
            if not (mine in BESIDE and theirs == "latlab_contract"):
                found.append(f"{where}: the runner, the CLI and the backend meet only in the "
                             "contract")
            continue
        low, high = rank(theirs), rank(mine)
        if low is None or high is None:
            found.append(f"{where}: a room the layers do not name")
        elif low > high:
            found.append(f"{where}: a lower room imports a higher one")
    return found


def test_every_import_runs_down_the_layers() -> None:
    found = [problem for name, path in modules() for problem in wrong_way(name, path)]
    assert found == [], "\n".join(found)


def test_no_import_hides_in_a_function() -> None:
    """Imports stand at the top of a module (or say why not, on the line before)."""
    hidden = []
    for _, path in modules():
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Import | ast.ImportFrom) and not lines[
                            inner.lineno - 2].strip().startswith("#"):
                        hidden.append(f"{path.relative_to(ROOT)}:{inner.lineno}")
    assert hidden == [], "imports inside functions (say why in a comment above):\n" + (
        "\n".join(hidden))


@pytest.mark.parametrize(("module", "source", "expected"), [
    ("latlab.runs.service", "from latlab.analysis import compare\n",
     "a lower room imports a higher one"),
    ("latlab.core.db", "import latlab.runs.service\n", "a lower room imports a higher one"),
    ("latlab_contract.hdr", "from latlab.core import errors\n",
     "a lower room imports a higher one"),
    ("latlab.runs.service", "from latlab_workers import runner\n",
     "the runner, the CLI and the backend meet only in the contract"),
    ("latlab_cli.submit", "from latlab.runs import service\n",
     "the runner, the CLI and the backend meet only in the contract"),
    ("latlab_cli.submit", "from latlab_workers import runner\n",
     "the runner, the CLI and the backend meet only in the contract"),
    ("latlab.runs.router", "from latlab.ingest.service import ingest\n", None),
    ("latlab.analysis.compare", "from latlab.runs import service\n", None),
])
def test_the_check_fails_when_an_import_runs_up(tmp_path: Path, module: str, source: str,
                                                 expected: str | None) -> None:
    path = tmp_path / "module.py"
    path.write_text(source)
    problems = [p.split(": ", 1)[1] for p in _wrong_way_at(module, path, tmp_path)]
    assert problems == ([] if expected is None else [expected])


def _wrong_way_at(name: str, path: Path, base: Path) -> list[str]:
    global ROOT
    saved, ROOT = ROOT, base
    try:
        return wrong_way(name, path)
    finally:
        ROOT = saved
