"""A one-shot reader of harness output, run by the api in a process of its own
(`latlab.core.isolation`): a crash or a runaway allocation in the parsers' native code ends
this process, not the api.

    python -m latlab_contract.parsers.reader --memory-mb 2048

It imports every parser (the registry's modules), then limits its address space to what it
has mapped plus `--memory-mb`, reads one request from stdin (a JSON line: adapter, suite, scenario,
started_at, source, unit; then the output itself, gzipped or not, a tar archive for
the formats that are a directory: `registry.read_body`) and writes one JSON answer to stdout:
`{"document": <latlab.result/v1 JSON text>}`, `{"error": <message naming the line or JSON
path>}`, or `{"memory": true}` when an allocation failed. It exits at once on an empty
request (the api closed its end).
"""

import argparse
import json
import os
import resource
import sys
from datetime import datetime

from latlab_contract.parsers import ParseContext, ParseError, adapt_json, read_body
from latlab_contract.result import SourceIn


def main() -> None:
    options = argparse.ArgumentParser()
    options.add_argument("--memory-mb", type=int, required=True)
    memory = options.parse_args().memory_mb << 20
    with open("/proc/self/statm") as statm:
        mapped = int(statm.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (mapped + memory, mapped + memory))
    try:
        answer = _answer()
    except MemoryError:
        answer = {"memory": True}
    if answer is not None:
        sys.stdout.write(json.dumps(answer))
    sys.stdout.flush()
    # No interpreter teardown: it held the api's request for tens of milliseconds, and
    # this process keeps nothing worth finalizing.
    os._exit(0)


def _answer() -> dict[str, object] | None:
    header = sys.stdin.buffer.readline()
    if not header.strip():
        return None
    request = json.loads(header)
    try:
        text = read_body(request["adapter"], sys.stdin.buffer.read())
        document = adapt_json(
            request["adapter"], text, suite=request["suite"], scenario=request["scenario"],
            started_at=datetime.fromisoformat(request["started_at"]),
            source=SourceIn.model_validate(request["source"]),
            context=ParseContext(latency_unit=request["unit"]),
            gate_metrics=request.get("gate") or None)
    except ParseError as error:
        return {"error": str(error)}
    except RecursionError:
        return {"error": "the output is nested too deeply"}
    except MemoryError:
        raise
    except Exception as error:  # a parser's bug must still answer, naming it
        return {"error": f"{type(error).__name__}: {error}", "unexpected": True}
    return {"document": document}


if __name__ == "__main__":
    main()
