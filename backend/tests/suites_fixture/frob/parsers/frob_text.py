"""The frob text format: `frobs/s R`, `other-frobnicators N`, `latency-ns V V ...`."""

from latlab_contract.parsers import ParseContext, Parsed, ParseError
from latlab_contract.result import SeriesIn, TrialIn


def parse(text: str, context: ParseContext) -> Parsed:
    fields: dict[str, list[str]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        key, _, rest = line.partition(" ")
        if key not in ("frobs/s", "other-frobnicators", "latency-ns"):
            raise ParseError(f"line {number}: unknown field {key!r}")
        fields[key] = rest.split()
    missing = {"frobs/s", "other-frobnicators", "latency-ns"} - set(fields)
    if missing:
        raise ParseError(f"missing {sorted(missing)}")
    trial = TrialIn.model_validate({
        "latency": {"samples_ns": [int(v) for v in fields["latency-ns"]]},
        "metrics": {"frobs": float(fields["frobs/s"][0]),
                    "other_servers": float(fields["other-frobnicators"][0])},
    })
    return Parsed(series=[SeriesIn(trials=[trial])])
