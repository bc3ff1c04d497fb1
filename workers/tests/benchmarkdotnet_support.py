"""What the BenchmarkDotNet adapter's tests share: its golden files
(golden/adapters/benchmarkdotnet/), an export as BenchmarkDotNet wrote it, and what the adapter
reads of one."""

import json
from pathlib import Path
from typing import Any

from latlab_contract.parsers import ParseContext, Parsed, get_parser

GOLDEN = Path(__file__).parent / "golden" / "adapters" / "benchmarkdotnet"
CONTEXT = ParseContext()
V0_15_1 = GOLDEN / "0.15.1" / "Demo.Benchmarks.StringProcessorBenchmarks-report-full.json"
FAILING = GOLDEN / "0.14.1-nightly" / "TodoApp.OpenApiBenchmarks-report-full-compressed.json"


def parsed(path: Path) -> Parsed:
    return get_parser("benchmarkdotnet")(path.read_text(), CONTEXT)


def relative(path: Path) -> str:
    return str(path.relative_to(GOLDEN))


def document(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())  # type: ignore[no-any-return]
