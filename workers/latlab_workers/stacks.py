"""Folded stacks: each profiler's output read into stacks that run from the root, and the
folded text a profile is stored as, bounded to what a result may hold."""

import logging
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from latlab_contract.result import MAX_PROFILE_CHARS, MAX_PROFILE_DEPTH, MAX_PROFILE_STACKS

log = logging.getLogger(__name__)


Stacks = Counter[tuple[str, ...]]

_UNKNOWN = "[unknown]"
_END_OF_STACK = "ffffffffffffffff"  # a return address of 0, less 1 (perf's call site)
_TRUNCATED = "[truncated]"


def fold_perf_script(lines: Iterable[str]) -> Stacks:
    """`perf script` output folded: each sample is a header line, its frames from the leaf
    down (`address symbol+0xoffset (module)`), then a blank line. Stacks run from the root;
    a frame is its symbol without the offset, `[module]` where perf knows only the module,
    `[unknown]` where it knows neither. A return address of 0, which a program puts at the
    bottom of a stack it makes (the Zig server's coroutines) to end it, is no frame: perf
    shows it as address 0 - 1."""
    stacks: Stacks = Counter()
    frames: list[str] | None = None
    for line in lines:
        if not line.strip():
            if frames is not None:
                stacks[tuple(reversed(frames)) or (_UNKNOWN,)] += 1
            frames = None
        elif not line[0].isspace():
            frames = []  # a sample's header: command, thread, time, event
        elif frames is not None and (frame := _perf_frame(line)) is not None:
            frames.append(frame)
    if frames is not None:
        stacks[tuple(reversed(frames)) or (_UNKNOWN,)] += 1
    return stacks


def fold_collapsed(lines: Iterable[str]) -> Stacks:
    """Folded stacks as py-spy and async-profiler write them (`frame;...;frame count`), a
    stack given twice summed; a sample with no frames (py-spy's, outside any Python code) is
    `[unknown]`, and a line that is not a stack is left out."""
    stacks: Stacks = Counter()
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if count.isdigit() and int(count) > 0:
            frames = tuple(frame.strip() or _UNKNOWN for frame in stack.split(";"))
            stacks[frames] += int(count)
    return stacks


def folded_text(stacks: Stacks, what: str) -> str:
    """The profile's folded text, within the contract's bounds: a stack deeper than it
    allows keeps its leaf end under a `[truncated]` root; when there are more stacks or more
    text than a profile holds, the heaviest that fit are kept, and the log says so."""
    bounded: Stacks = Counter()
    for frames, count in stacks.items():
        if len(frames) > MAX_PROFILE_DEPTH:
            frames = (_TRUNCATED, *frames[-(MAX_PROFILE_DEPTH - 1):])
        bounded[frames] += count
    kept: list[str] = []
    size = 0
    for frames, count in bounded.most_common():
        line = f"{';'.join(frames)} {count}\n"
        if len(kept) == MAX_PROFILE_STACKS or size + len(line) > MAX_PROFILE_CHARS:
            break
        kept.append(line)
        size += len(line)
    if len(kept) < len(bounded):
        total = sum(bounded.values())
        share = sum(count for _, count in bounded.most_common(len(kept))) / total
        log.warning("profile of %s: kept the %d heaviest of %d stacks (%.1f %% of %d samples) "
                    "to fit a profile's bounds", what, len(kept), len(bounded), 100 * share,
                    total)
    return "".join(sorted(kept))


def _perf_frame(line: str) -> str | None:
    match = re.fullmatch(r"\s*([0-9a-f]+)\s+(.*?)\s+\(([^()]*(?: \(deleted\))?)\)\s*", line)
    if match is None:
        return _UNKNOWN
    if match[1] == _END_OF_STACK:
        return None
    symbol, module = re.sub(r"\+0x[0-9a-f]+$", "", match[2]), match[3]
    if symbol and symbol != _UNKNOWN:
        return symbol
    return f"[{Path(module).name}]" if module and module != _UNKNOWN else _UNKNOWN
