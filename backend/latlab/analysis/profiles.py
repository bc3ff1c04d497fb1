"""Two CPU profiles side by side: per frame, the share of samples in which it is on the CPU
(self) and on the stack at all (total), in the baseline and in the candidate, and the
difference; and every stack with both sides' samples, for a differential flame graph (Brendan
Gregg's: the candidate's stacks, coloured by how much each grew or shrank)."""

from dataclasses import dataclass

from latlab.runs.profiles import Stacks

MAX_DIFF_STACKS = 5000  # the heaviest stacks a differential flame graph gets, of both sides


@dataclass(frozen=True)
class FrameShare:
    frame: str
    baseline_self: float
    candidate_self: float
    baseline_total: float
    candidate_total: float

    @property
    def self_delta(self) -> float:
        return self.candidate_self - self.baseline_self

    @property
    def total_delta(self) -> float:
        return self.candidate_total - self.baseline_total


@dataclass(frozen=True)
class StackPair:
    frames: tuple[str, ...]
    baseline: int
    candidate: int


@dataclass(frozen=True)
class ProfileDiff:
    baseline_samples: int
    candidate_samples: int
    frames: list[FrameShare]  # largest self change first
    stacks: list[StackPair]  # heaviest first, at most MAX_DIFF_STACKS
    stacks_left_out: int


def diff(baseline: Stacks, candidate: Stacks) -> ProfileDiff:
    before, after = sum(baseline.values()), sum(candidate.values())
    own = (_shares(baseline, before, leaf=True), _shares(candidate, after, leaf=True))
    total = (_shares(baseline, before, leaf=False), _shares(candidate, after, leaf=False))
    names = set(total[0]) | set(total[1])
    frames = [FrameShare(name, own[0].get(name, 0.0), own[1].get(name, 0.0),
                         total[0].get(name, 0.0), total[1].get(name, 0.0)) for name in names]
    frames.sort(key=lambda f: (-abs(f.self_delta), -abs(f.total_delta), f.frame))
    union = set(baseline) | set(candidate)
    weight = {stack: max(baseline.get(stack, 0) / max(before, 1),
                         candidate.get(stack, 0) / max(after, 1)) for stack in union}
    kept = sorted(union, key=lambda stack: (-weight[stack], stack))[:MAX_DIFF_STACKS]
    return ProfileDiff(
        baseline_samples=before, candidate_samples=after, frames=frames,
        stacks=[StackPair(stack, baseline.get(stack, 0), candidate.get(stack, 0))
                for stack in kept],
        stacks_left_out=len(union) - len(kept))


def _shares(stacks: Stacks, samples: int, *, leaf: bool) -> dict[str, float]:
    """Each frame's share of the samples: as the stack's leaf (self), or anywhere in it
    (total; a frame a recursion repeats counts once per sample)."""
    counts: dict[str, int] = {}
    for stack, count in stacks.items():
        for frame in (stack[-1:] if leaf else set(stack)):
            counts[frame] = counts.get(frame, 0) + count
    return {frame: count / samples for frame, count in counts.items()} if samples else {}
