"""A bench's measurements kept as they are made, one JSON line each, so a bench whose targets
take longer than one sitting (hours of try jobs or bisections on a quiet host) is run in
several: each sitting adds what is missing and the report reads every line kept. Lines are
matched by what they measured (a kind and its settings), so a setting changed between
sittings starts a sample of its own instead of mixing into the old one. The files live in
`bench/records/` and are committed: they are the evidence behind the figures in the docs."""

import json
import platform
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parent / "records"


class Records:
    """The lines of one bench's record file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines: list[dict[str, Any]] = (
            [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            if path.exists() else [])

    def of(self, kind: str, **settings: Any) -> list[dict[str, Any]]:
        """The measurements of `kind` made with these settings, oldest first."""
        return [line["measured"] for line in self.lines if line["kind"] == kind
                and all(line["settings"].get(k) == v for k, v in settings.items())]

    def add(self, kind: str, settings: dict[str, Any],
            measured: dict[str, Any]) -> dict[str, Any]:
        """Keep one measurement at once (a sitting stopped later loses nothing of it)."""
        line = {"kind": kind, "settings": settings, "measured": measured,
                "at": datetime.now(UTC).isoformat(timespec="seconds"),
                "host": platform.node()}
        self.lines.append(line)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a") as out:
            out.write(json.dumps(line, sort_keys=True) + "\n")
        return measured

    def sittings(self) -> int:
        """On how many days the lines were measured."""
        return len({line["at"][:10] for line in self.lines})
