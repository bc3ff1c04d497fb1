"""CPU profiles stored with their run: each program's folded stacks (`ProfileIn`), merged per
distinct stack, zlib-compressed, one row per series and program; read back as folded text or
as a speedscope document (https://www.speedscope.app/file-format-schema.json)."""

import zlib
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.core.errors import NotFound
from latlab.models import Profile, Run, Series
from latlab.runs.keys import label_key
from latlab_contract.result import ProfileIn, folded_stacks

Stacks = dict[tuple[str, ...], int]


def rows(run: Run, series_ids: dict[str, int], profiles: list[ProfileIn]) -> list[Profile]:
    """The profiles of a run being stored, on the series their labels name (by label key);
    the contract has checked that each names a series of the run."""
    made = []
    for profile in profiles:
        stacks = folded_stacks(profile.folded)
        text = folded(stacks)
        made.append(Profile(
            run_id=run.id, series_id=series_ids[label_key(profile.labels)],
            program=profile.program, tool=profile.tool, frequency_hz=profile.frequency_hz,
            samples=sum(stacks.values()), stacks=len(stacks), folded_bytes=len(text.encode()),
            data=zlib.compress(text.encode(), 6)))
    return made


def of_run(session: Session, run: Run) -> list[tuple[Profile, dict[str, Any]]]:
    """The run's profiles with their series' labels."""
    return [(profile, labels) for profile, labels in session.execute(
        select(Profile, Series.labels).join(Series, Series.id == Profile.series_id)
        .where(Profile.run_id == run.id).order_by(Profile.series_id, Profile.program))]


def get(session: Session, run: Run, profile_id: int) -> Profile:
    profile = session.get(Profile, profile_id)
    if profile is None or profile.run_id != run.id:
        raise NotFound(f"run {run.id} has no profile {profile_id}")
    return profile


def stacks(profile: Profile) -> Stacks:
    return folded_stacks(zlib.decompress(profile.data).decode())


def folded(stacks: Stacks) -> str:
    """Folded text, heaviest stacks first (ties by name, so the text is stable)."""
    ordered = sorted(stacks.items(), key=lambda item: (-item[1], item[0]))
    return "".join(f"{';'.join(frames)} {count}\n" for frames, count in ordered)


def speedscope(stacks: Stacks, name: str) -> dict[str, Any]:
    """A speedscope "sampled" profile: each distinct stack once, weighted by its samples."""
    frames: dict[str, int] = {}
    samples, weights = [], []
    for stack, count in sorted(stacks.items(), key=lambda item: (-item[1], item[0])):
        samples.append([frames.setdefault(frame, len(frames)) for frame in stack])
        weights.append(count)
    return {
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "exporter": "latlab", "name": name, "activeProfileIndex": 0,
        "shared": {"frames": [{"name": frame} for frame in frames]},
        "profiles": [{"type": "sampled", "name": name, "unit": "none", "startValue": 0,
                      "endValue": sum(weights), "samples": samples, "weights": weights}],
    }
