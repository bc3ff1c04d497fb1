#!/usr/bin/env python3
"""What the suites need on a host, read from each `workers/suites/*/suite.toml` `[toolchain]`
(the runner validates the whole file; this reads only that section, with the standard
library, so it runs before any virtualenv exists).

    toolchain.py apt              Debian packages still missing, one per line
    toolchain.py install PYTHON   pip packages into PYTHON's environment, `go install`
                                  programs next to it (on the runner's programs' PATH)
"""

import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

SUITES = Path(__file__).resolve().parents[1] / "workers" / "suites"


def toolchains() -> list[dict[str, list[object]]]:
    return [tomllib.loads(path.read_text()).get("toolchain", {})
            for path in sorted(SUITES.glob("*/suite.toml"))]


def missing_apt() -> list[str]:
    needed: list[str] = []
    for toolchain in toolchains():
        for entry in toolchain.get("apt", []):
            package, command = (entry, None) if isinstance(entry, str) else (
                entry["package"], entry.get("command"))  # type: ignore[index]
            present = shutil.which(command) is not None if command else _installed(package)
            if not present and package not in needed:
                needed.append(str(package))
    return needed


def _installed(package: object) -> bool:
    status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", str(package)],
                            capture_output=True, text=True, check=False)
    return status.stdout.endswith("install ok installed")


def install(python: str) -> None:
    pip = sorted({str(p) for t in toolchains() for p in t.get("pip", [])})
    if pip:
        subprocess.run([python, "-m", "pip", "install", "-q", *pip], check=True)
    tools = Path(python).parent
    for toolchain in toolchains():
        for entry in toolchain.get("go", []):
            module, name = (entry, None) if isinstance(entry, str) else (
                entry["module"], entry.get("as"))  # type: ignore[index]
            _go_install(str(module), tools, None if name is None else str(name))


def _go_install(module: str, tools: Path, name: str | None) -> None:
    """`go install module@version`, the binary renamed to `name` if given; skipped when that
    version is installed already."""
    built = module.split("@")[0].rsplit("/", 1)[-1]
    target = tools / (name or built)
    stamp = tools / f".{target.name}.module"
    if target.exists() and stamp.exists() and stamp.read_text() == module:
        return
    with tempfile.TemporaryDirectory() as gobin:
        subprocess.run(["go", "install", module], env={**os.environ, "GOBIN": gobin},
                       check=True)
        shutil.move(str(Path(gobin, built)), target)
    stamp.write_text(module)


def main(argv: list[str]) -> int:
    if argv[:1] == ["apt"]:
        for package in missing_apt():
            print(package)
        return 0
    if argv[:1] == ["install"] and len(argv) == 2:
        install(argv[1])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
