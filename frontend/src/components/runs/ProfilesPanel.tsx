import { Link } from "react-router";

import type { ProfileRead, RunRead } from "../../api/types";
import type { RunProfiles } from "../../hooks/useRunProfiles";
import { confirmationProfilesHref } from "../../lib/compare";
import { profileFoldedUrl } from "../../lib/downloads";
import type { FlameTree } from "../../lib/flamegraph";
import { profileName } from "../../lib/profiles";
import { FlameGraph } from "../charts/FlameGraph";
import { LabelledSelect } from "../common/Select";
import { ErrorState, QueryResult } from "../common/Status";

/**
 * The run's profiles, when it has any: pick one, see its flame graph, download it. Most are
 * CPU profiles; a program may also report stacks of its own (memcheck's errors, by where they
 * happened).
 */
export function ProfilesPanel({ run, profiles }: { run: RunRead; profiles: RunProfiles }) {
  const { chosen, choose, flame } = profiles;
  return (
    <QueryResult
      query={profiles.list}
      loading={null}
      title="Could not load the CPU profiles"
      isEmpty={(list) => list.length === 0}
      errorFrame={(state) => (
        <>
          <h2>CPU profiles</h2>
          {state}
        </>
      )}
    >
      {(list) =>
        chosen && (
          <section aria-labelledby="cpu-profiles">
            <h2 id="cpu-profiles">
              {list.every(isErrorStacks) ? "Memcheck error stacks" : "CPU profiles"}
            </h2>
            {run.confirms_run_id !== null && (
              <p>
                This confirmation profiled both versions:{" "}
                <Link to={confirmationProfilesHref(run.id)}>Compare CPU profiles</Link> of
                variant=baseline and variant=candidate.
              </p>
            )}
            <div className="toolbar">
              <LabelledSelect
                label="Profile"
                value={chosen.id}
                options={list.map((profile) => ({ value: profile.id, text: profileName(profile) }))}
                onChange={(value) => choose(Number(value))}
              />
              <a className="button" href={profileFoldedUrl(run.id, chosen.id)} download>
                Folded stacks
              </a>
              <span className="muted small">
                {chosen.stacks.toLocaleString("en-US")} distinct stacks
                {chosen.frequency_hz !== null && `, sampled at ${String(chosen.frequency_hz)} Hz`}
              </span>
            </div>
            <QueryResult
              key={chosen.id}
              query={flame}
              loading="Loading the profile…"
              title="Could not load the profile"
            >
              {(read) =>
                "error" in read ? (
                  <ErrorState title="Could not read the profile" message={read.error} />
                ) : (
                  <ProfileFlameGraph profile={chosen} tree={read.tree} />
                )
              }
            </QueryResult>
          </section>
        )
      }
    </QueryResult>
  );
}

function ProfileFlameGraph({ profile, tree }: { profile: ProfileRead; tree: FlameTree }) {
  const { kind, hint } = PROFILE_KINDS[profile.tool] ?? PROFILE_KINDS.cpu!;
  return (
    <>
      <FlameGraph tree={tree} label={`${kind} flame graph of ${profileName(profile)}`} />
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
