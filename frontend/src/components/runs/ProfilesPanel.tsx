import { useMemo, useState } from "react";
import { Link } from "react-router";

import { errorMessage } from "../../api/client";
import { useProfiles, useProfileStacks } from "../../api/runs";
import type { ProfileRead, RunRead } from "../../api/types";
import { confirmationProfilesHref } from "../../lib/compare";
import { profileFoldedUrl } from "../../lib/downloads";
import { flameTree, type FlameTree } from "../../lib/flamegraph";
import { profileName, stacksFromSpeedscope } from "../../lib/profiles";
import { FlameGraph } from "../charts/FlameGraph";
import { ErrorState, Loading } from "../common/Status";

/**
 * The run's profiles, when it has any: pick one, see its flame graph, download it. Most are
 * CPU profiles; a program may also report stacks of its own (memcheck's errors, by where they
 * happened).
 */
export function ProfilesPanel({ run }: { run: RunRead }) {
  const profiles = useProfiles(run.id);
  const [chosenId, setChosenId] = useState<number | null>(null);
  if (profiles.isPending || (profiles.isSuccess && profiles.data.length === 0)) return null;
  if (profiles.isError) {
    return (
      <>
        <h2>CPU profiles</h2>
        <ErrorState
          title="Could not load the CPU profiles"
          message={errorMessage(profiles.error)}
          onRetry={() => void profiles.refetch()}
        />
      </>
    );
  }
  const chosen = profiles.data.find((profile) => profile.id === chosenId) ?? profiles.data[0]!;
  const heading = profiles.data.every(isErrorStacks) ? "Memcheck error stacks" : "CPU profiles";
  return (
    <section aria-labelledby="cpu-profiles">
      <h2 id="cpu-profiles">{heading}</h2>
      {run.confirms_run_id !== null && (
        <p>
          This confirmation profiled both versions:{" "}
          <Link to={confirmationProfilesHref(run.id)}>Compare CPU profiles</Link> of
          variant=baseline and variant=candidate.
        </p>
      )}
      <div className="toolbar">
        <label>
          Profile{" "}
          <select value={chosen.id} onChange={(event) => setChosenId(Number(event.target.value))}>
            {profiles.data.map((profile) => (
              <option key={profile.id} value={profile.id}>
                {profileName(profile)}
              </option>
            ))}
          </select>
        </label>
        <a className="button" href={profileFoldedUrl(run.id, chosen.id)} download>
          Folded stacks
        </a>
        <span className="muted small">
          {chosen.stacks.toLocaleString("en-US")} distinct stacks
          {chosen.frequency_hz !== null && `, sampled at ${String(chosen.frequency_hz)} Hz`}
        </span>
      </div>
      <ProfileFlameGraph key={chosen.id} runId={run.id} profile={chosen} />
    </section>
  );
}

function ProfileFlameGraph({ runId, profile }: { runId: number; profile: ProfileRead }) {
  const stacks = useProfileStacks(runId, profile.id);
  const read = useMemo((): { tree: FlameTree } | { error: string } | null => {
    if (stacks.data === undefined) return null;
    try {
      return { tree: flameTree(stacksFromSpeedscope(stacks.data)) };
    } catch (error) {
      return { error: errorMessage(error) };
    }
  }, [stacks.data]);
  if (stacks.isError) {
    return <ErrorState title="Could not load the profile" message={errorMessage(stacks.error)} />;
  }
  if (read === null) return <Loading label="Loading the profile…" />;
  if ("error" in read) {
    return <ErrorState title="Could not read the profile" message={read.error} />;
  }
  const { kind, hint } = PROFILE_KINDS[profile.tool] ?? PROFILE_KINDS.cpu!;
  return (
    <>
      <FlameGraph tree={read.tree} label={`${kind} flame graph of ${profileName(profile)}`} />
      <p className="muted small">{hint}</p>
    </>
  );
}

/** What a profile's stacks count, by the tool that recorded them (CPU samples by default). */
const PROFILE_KINDS: Record<string, { kind: string; hint: string }> = {
  cpu: {
    kind: "CPU",
    hint:
      "Top-down: the root (all samples) at the top, each function's callees under it; a " +
      "frame is as wide as its share of the samples, siblings sorted by name (the x axis is " +
      "not time), colours only tell frames apart.",
  },
  memcheck: {
    kind: "Memcheck error",
    hint:
      "Where memcheck found errors: each stack is an error's, root at the top, the faulting " +
      "frame (function, file:line) just above its kind; a frame is as wide as its share of " +
      "the errors.",
  },
  callgrind: {
    kind: "Instruction",
    hint:
      "Each function's own instructions while the server served the requests (callgrind's " +
      "self cost), one frame each: a frame is as wide as its share of the instructions.",
  },
  strace: {
    kind: "System call",
    hint:
      "The server's system calls while it served the requests (strace -c), one frame per " +
      "call: a frame is as wide as its share of the calls.",
  },
};

/** Stacks of errors a program reported (valgrind's memcheck), not CPU samples. */
function isErrorStacks(profile: ProfileRead): boolean {
  return profile.tool === "memcheck";
}
