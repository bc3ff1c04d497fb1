"""What the harness adapters' API tests share: the golden files of the real tools, and a
Markdown report's table as a Markdown parser reads it."""

from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "workers" / "tests" / "golden" / "adapters"


def markdown_rows(text: str) -> list[list[str]]:
    """The table's cells as a Markdown renderer reads them (GitHub-flavoured tables)."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    rows: list[list[str]] = []
    for token in tokens:
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "inline" and rows and token.map is not None:
            rendered = "".join(child.content for child in token.children or []
                               if child.type in ("text", "code_inline"))
            rows[-1].append(rendered.strip())
    return rows
