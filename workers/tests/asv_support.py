"""What the asv adapter's tests share: its golden files (golden/adapters/asv/) and what the
adapter reads of one."""

from pathlib import Path

from latlab_contract.parsers import ParseContext, Parsed, get_parser

GOLDEN = Path(__file__).parent / "golden" / "adapters" / "asv"
CONTEXT = ParseContext()


def parsed(path: Path) -> Parsed:
    return get_parser("asv")(path.read_text(), CONTEXT)


def relative(path: Path) -> str:
    return str(path.relative_to(GOLDEN))
