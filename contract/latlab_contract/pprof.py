"""Go's pprof profiles (profile.proto, as `go test -cpuprofile` and `runtime/pprof` write it,
usually gzipped) as folded stacks, read with the protobuf library: the message types are built
at import from the part of profile.proto a profile's stacks need (unknown fields are skipped).

A sample's locations run from the leaf up, and a location's lines list the functions inlined
into it leaf first: together, the sample's frames from the leaf; folded stacks are root first.
Each sample counts with its value of the `samples` type (a CPU profile's sample count), or its
first value."""

import gzip
import zlib
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_PACKAGE = "latlab.pprof"
_F = descriptor_pb2.FieldDescriptorProto


def _profile_type() -> Any:
    file = descriptor_pb2.FileDescriptorProto(name="latlab_pprof.proto", package=_PACKAGE,
                                              syntax="proto3")

    def message(name: str, *fields: tuple[int, str, int, bool, str | None]) -> None:
        described = file.message_type.add(name=name)
        for number, field, kind, repeated, type_name in fields:
            added = described.field.add(
                name=field, number=number, type=kind,
                label=_F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL)
            if type_name is not None:
                added.type_name = f".{_PACKAGE}.{type_name}"

    message("ValueType", (1, "type", _F.TYPE_INT64, False, None),
            (2, "unit", _F.TYPE_INT64, False, None))
    message("Sample", (1, "location_id", _F.TYPE_UINT64, True, None),
            (2, "value", _F.TYPE_INT64, True, None))
    message("Line", (1, "function_id", _F.TYPE_UINT64, False, None))
    message("Location", (1, "id", _F.TYPE_UINT64, False, None),
            (3, "address", _F.TYPE_UINT64, False, None),
            (4, "line", _F.TYPE_MESSAGE, True, "Line"))
    message("Function", (1, "id", _F.TYPE_UINT64, False, None),
            (2, "name", _F.TYPE_INT64, False, None))
    message("Profile", (1, "sample_type", _F.TYPE_MESSAGE, True, "ValueType"),
            (2, "sample", _F.TYPE_MESSAGE, True, "Sample"),
            (4, "location", _F.TYPE_MESSAGE, True, "Location"),
            (5, "function", _F.TYPE_MESSAGE, True, "Function"),
            (6, "string_table", _F.TYPE_STRING, True, None))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.Profile"))


_PROFILE = _profile_type()
MAX_BYTES = 64 * 1024 * 1024  # a profile unpacked; more is refused


class PprofError(ValueError):
    """Bytes that are not a pprof profile, or one with no samples."""


def is_pprof(data: bytes) -> bool:
    """Gzipped (as Go writes them) or not valid UTF-8 text: not folded stacks."""
    if data[:2] == b"\x1f\x8b":
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def folded(data: bytes) -> str:
    """The profile's stacks as folded text (`frame;...;frame count`, root first)."""
    raw = _unpacked(data)
    profile = _PROFILE()
    try:
        profile.ParseFromString(raw)
    except Exception as error:  # protobuf's DecodeError, and what a broken message raises
        raise PprofError(f"not a pprof profile: {error}") from error
    strings = list(profile.string_table)

    def text(index: int) -> str:
        return strings[index] if 0 <= index < len(strings) else ""

    types = [text(t.type) for t in profile.sample_type]
    which = types.index("samples") if "samples" in types else 0
    functions = {f.id: text(f.name) or "[unknown]" for f in profile.function}
    locations = {
        location.id: [functions.get(line.function_id, "[unknown]") for line in location.line]
        or [f"0x{location.address:x}"] for location in profile.location}
    stacks: dict[str, int] = {}
    for sample in profile.sample:
        count = sample.value[which] if len(sample.value) > which else 0
        if count <= 0:
            continue
        leaf_first = [frame for location in sample.location_id
                      for frame in locations.get(location, ["[unknown]"])]
        stack = ";".join(frame.replace(";", ":") for frame in reversed(leaf_first))
        stacks[stack or "[unknown]"] = stacks.get(stack or "[unknown]", 0) + count
    if not stacks:
        raise PprofError("the pprof profile holds no samples")
    return "".join(f"{stack} {count}\n" for stack, count in stacks.items())


def _unpacked(data: bytes) -> bytes:
    if data[:2] != b"\x1f\x8b":
        return data
    try:
        unpacker = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        raw = unpacker.decompress(data, MAX_BYTES)
    except (zlib.error, gzip.BadGzipFile) as error:
        raise PprofError(f"not a gzipped pprof profile: {error}") from error
    if unpacker.unconsumed_tail:
        raise PprofError(f"the pprof profile unpacks to more than {MAX_BYTES} bytes")
    if not unpacker.eof:
        raise PprofError("the gzipped pprof profile is cut short")
    return raw
