"""Output parsers: what a program or a benchmark harness prints -> series of the result
contract. One registry serves the runner (a suite program's `output`) and CI
(`latlab submit --adapter NAME`, `POST /runs?adapter=NAME`).

A parser is `parse(text, context) -> Parsed` (`base`), one module each; `registry` names them
and turns outputs into runs. Parsers are tested against golden files: output the real tool
printed, with the command that made it.
"""

from latlab_contract.parsers.base import (
    ParseContext,
    Parsed,
    ParseError,
    Parser,
    validation_message,
)
from latlab_contract.parsers.registry import (
    PARSERS,
    adapt,
    adapt_json,
    get_parser,
    load_parser,
    read_body,
    read_output,
)

__all__ = ["PARSERS", "ParseContext", "ParseError", "Parsed", "Parser", "adapt", "adapt_json",
           "get_parser", "load_parser", "read_body", "read_output", "validation_message"]
