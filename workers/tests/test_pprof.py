"""Go's pprof profiles read as folded stacks, checked against Go's own reading of the same file
(`go tool pprof -traces`): a real profile written by runtime/pprof from a program that spins
in named functions (golden/pprof/spin.go)."""

import gzip
import shutil
import subprocess
from pathlib import Path

import pytest

from latlab_contract import pprof
from latlab_contract.result import folded_stacks

GOLDEN = Path(__file__).parent / "golden" / "pprof"


@pytest.fixture(scope="module")
def profile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pprof")
    shutil.copy(GOLDEN / "spin.go", folder / "main.go")
    (folder / "go.mod").write_text("module spinprof\n\ngo 1.19\n")
    subprocess.run(["go", "build", "-o", "spin", "."], cwd=folder, check=True, timeout=300,
                   capture_output=True)
    subprocess.run([str(folder / "spin"), str(folder / "cpu.pprof")], check=True, timeout=60)
    return folder / "cpu.pprof"


def _go_traces(path: Path) -> dict[tuple[str, ...], int]:
    """`go tool pprof -traces` read back: each trace's sample count and frames (leaf first
    there), summed per stack of names."""
    text = subprocess.run(["go", "tool", "pprof", "-traces", "-sample_index=samples",
                           str(path)], capture_output=True, text=True, check=True,
                          timeout=120).stdout
    stacks: dict[tuple[str, ...], int] = {}
    for block in text.split("-----------+" + "-" * 55)[1:]:
        lines = [line for line in block.splitlines() if line.strip()]
        if not lines:
            continue
        count, leaf = lines[0].split(None, 1)
        # pprof marks a function inlined into its caller "(inline)": the same frame.
        frames = tuple(line.strip().removesuffix(" (inline)")
                       for line in (leaf, *lines[1:]))
        key = tuple(reversed(frames))
        stacks[key] = stacks.get(key, 0) + int(count)
    return stacks


@pytest.mark.parametrize("made", [True, False], ids=["made-now", "golden"])
def test_a_go_cpu_profile_folds_as_go_reads_it(profile: Path, made: bool) -> None:
    """A profile written now, and golden/pprof/cpu.pprof (written by the same program)."""
    profile = profile if made else GOLDEN / "cpu.pprof"
    data = profile.read_bytes()
    assert pprof.is_pprof(data)
    ours = folded_stacks(pprof.folded(data))
    assert ours == _go_traces(profile)
    assert any(stack[-1] in {"main.spin", "time.Now", "time.runtimeNow"} for stack in ours)
    # Unzipped, it reads the same.
    assert folded_stacks(pprof.folded(gzip.decompress(data))) == ours


def test_what_is_not_a_pprof_profile_is_refused(profile: Path) -> None:
    assert not pprof.is_pprof(b"main;spin 3\n")
    data = profile.read_bytes()
    for broken in (data[: len(data) // 2], b"\x1f\x8b" + b"\x00" * 20,
                   gzip.compress(b"\xff\xfe not a message")):
        with pytest.raises(pprof.PprofError):
            pprof.folded(broken)
    with pytest.raises(pprof.PprofError, match="no samples"):
        pprof.folded(gzip.compress(b""))
    bomb = gzip.compress(b"\x00" * (pprof.MAX_BYTES + 1))
    with pytest.raises(pprof.PprofError, match="unpacks to more than"):
        pprof.folded(bomb)
