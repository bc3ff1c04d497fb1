"""The parsers by name, one registry for the runner (a suite program's `output`) and CI
(`latlab submit --adapter NAME`, `POST /runs?adapter=NAME`), and what turns outputs into a
`latlab.result/v1` run."""

import gzip
import importlib.util
import io
import tarfile
import tempfile
import zlib
from datetime import datetime
from pathlib import Path

from pydantic import ValidationError

from latlab_contract.fields import Scalar
from latlab_contract.parsers import (
    ab,
    asv,
    benchmarkdotnet,
    catch2,
    criterion,
    ghz,
    go_bench,
    google_benchmark,
    gungraun,
    hlog,
    hyperfine,
    jmh,
    k6,
    latlab_json,
    libtest,
    oha,
    pytest_benchmark,
    vegeta,
    vitest_bench,
    wrk,
    wrk2,
)
from latlab_contract.parsers.base import (
    ParseContext,
    ParseError,
    Parser,
    validation_message,
)
from latlab_contract.result import SCHEMA_VERSION, RunCreate, SeriesIn, SourceIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

# latlab's own program output and the harness adapters.
PARSERS: dict[str, Parser] = {
    "latlab-json": latlab_json.parse,
    "ab": ab.parse,
    "asv": asv.parse,
    "hlog": hlog.parse,
    "go-bench": go_bench.parse,
    "google-benchmark": google_benchmark.parse,
    "catch2": catch2.parse,
    "criterion": criterion.parse,
    "libtest": libtest.parse,
    "gungraun": gungraun.parse,
    "jmh": jmh.parse,
    "pytest-benchmark": pytest_benchmark.parse,
    "hyperfine": hyperfine.parse,
    "vitest-bench": vitest_bench.parse,
    "k6": k6.parse,
    "wrk2": wrk2.parse,
    "wrk": wrk.parse,
    "vegeta": vegeta.parse,
    "oha": oha.parse,
    "ghz": ghz.parse,
    "benchmarkdotnet": benchmarkdotnet.parse,
}
# Formats that are a directory rather than a file.
DIRECTORY_READERS = {"criterion": criterion.bundle, "gungraun": gungraun.bundle}


def get_parser(name: str) -> Parser:
    if name not in PARSERS:
        raise ParseError(f"unknown output format '{name}' (known: {', '.join(sorted(PARSERS))})")
    return PARSERS[name]


def adapt(
    adapter: str,
    outputs: list[tuple[str, str]],
    *,
    suite: str,
    scenario: str,
    started_at: datetime,
    source: SourceIn,
    context: ParseContext = ParseContext(),
    gate_metrics: list[str] | None = None,
) -> RunCreate:
    """A `latlab.result/v1` run from a harness's outputs, each `(name, text)` (several files
    are several trials: a series' trials are appended in order, matched by labels). Errors
    name the output (when there are several) and the line or JSON path. `gate_metrics`: what
    the user asked the gate to judge (`--gate-metric`), in place of the harness's headline."""
    parser = get_parser(adapter)
    trials: dict[tuple[tuple[str, str], ...], list[TrialIn]] = {}
    metric_info: dict[str, MetricSpec] = {}
    gate: list[str] = []
    machine: dict[str, Scalar] = {}
    notes: list[str] = []
    for name, text in outputs:
        try:
            try:
                parsed = parser(text, context)
            except ValidationError as error:  # what it read breaks the contract
                raise ParseError(validation_message(error)) from error
        except ParseError as error:
            raise ParseError(f"{name}: {error}" if len(outputs) > 1 else str(error)) from error
        metric_info.update(parsed.metric_info)
        gate += [metric for metric in parsed.gate if metric not in gate]
        machine.update(parsed.context)
        notes += [note for note in parsed.notes if note not in notes]
        for item in parsed.series:
            trials.setdefault(tuple(sorted(item.labels.items())), []).extend(item.trials)
    try:
        return RunCreate.model_validate({
            "schema": SCHEMA_VERSION, "suite": suite, "scenario": scenario,
            "params": {"adapter": adapter}, "started_at": started_at, "source": source,
            "metric_info": metric_info, "gate": gate_metrics or gate or None,
            "harness": {"context": machine, "notes": notes} if machine or notes else None,
            "series": [SeriesIn(labels=dict(key), trials=items) for key, items in trials.items()]})
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error


def adapt_json(adapter: str, text: str, *, suite: str, scenario: str, started_at: datetime,
               source: SourceIn, context: ParseContext,
               gate_metrics: list[str] | None = None) -> str:
    """`adapt` of one output, as the document's JSON text: what the api's isolated reader
    (a child process) hands back."""
    run = adapt(adapter, [("body", text)], suite=suite, scenario=scenario,
                started_at=started_at, source=source, context=context,
                gate_metrics=gate_metrics)
    return run.model_dump_json(by_alias=True, exclude_none=True)


def read_output(adapter: str, path: Path) -> str:
    """A harness output from a file (gzipped or not; a tar archive for the formats that are a
    directory: `read_body`), or from a directory for those formats (Criterion's
    `target/criterion`)."""
    if path.is_dir():
        if adapter not in DIRECTORY_READERS:
            raise ParseError(f"{path}: a directory (the {adapter} adapter reads a file)")
        return DIRECTORY_READERS[adapter](path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ParseError(f"cannot read {path}: {error}") from error
    try:
        return read_body(adapter, data)
    except ParseError as error:
        raise ParseError(f"{path}: {error}") from error


GZIP_MAGIC = b"\x1f\x8b"


def read_body(adapter: str, data: bytes) -> str:
    """A harness output sent as bytes (`POST /runs?adapter=`): gzipped or not (gzip's magic
    bytes say), and for the formats that are a directory (Criterion's `target/criterion`) a
    tar archive of it."""
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:
            raise ParseError(f"the body is gzipped but cannot be unzipped: {error}") from error
    if adapter in DIRECTORY_READERS and _is_tar(data):
        with tempfile.TemporaryDirectory(prefix="latlab-body-") as folder:
            _untar(data, Path(folder))
            return DIRECTORY_READERS[adapter](Path(folder))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ParseError(f"the body is not UTF-8 text (byte {error.start}): send the tool's "
                         f"output as it wrote it, or gzipped") from error


def _is_tar(data: bytes) -> bool:
    return len(data) >= 512 and data[257:262] == b"ustar"


def _untar(data: bytes, folder: Path) -> None:
    """The archive's regular files under `folder` (links, devices and paths that leave it are
    refused)."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            members = archive.getmembers()
            for member in members:
                if not (member.isfile() or member.isdir()):
                    raise ParseError(f"the archive's {member.name!r} is not a file or folder")
            archive.extractall(folder, members=members, filter="data")
    except (tarfile.TarError, OSError) as error:
        raise ParseError(f"the body is not a tar archive that can be read: {error}") from error


def load_parser(path: Path) -> Parser:
    """A suite's own parser: a Python file in its folder defining `parse(text, context)`."""
    spec = importlib.util.spec_from_file_location(f"latlab_suite_parser_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ParseError(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    parse = getattr(module, "parse", None)
    if not callable(parse):
        raise ParseError(f"{path}: defines no parse(text, context)")
    return parse  # type: ignore[no-any-return]
