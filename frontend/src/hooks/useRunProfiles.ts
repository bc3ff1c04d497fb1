import { useMemo, useState } from "react";

import { errorMessage } from "../api/client";
import type { QueryState } from "../api/hooks";
import { useProfiles, useProfileStacks } from "../api/runs";
import type { ProfileRead } from "../api/types";
import { flameTree, type FlameTree } from "../lib/flamegraph";
import { stacksFromSpeedscope } from "../lib/profiles";

/** A profile's stacks as a flame graph's tree, or why they could not be read. */
export type FlameRead = { tree: FlameTree } | { error: string };

/** A run's profiles, the one chosen (the first until another is) and its flame graph. */
export interface RunProfiles {
  list: QueryState<ProfileRead[]>;
  chosen: ProfileRead | undefined;
  choose: (profileId: number) => void;
  /** The chosen profile's stacks, read. */
  flame: QueryState<FlameRead>;
}

/** The run's profiles and the chosen one's stacks (read only when `enabled`). */
export function useRunProfiles(runId: number, enabled = true): RunProfiles {
  const list = useProfiles(runId, enabled);
  const [chosenId, setChosenId] = useState<number | null>(null);
  const chosen = list.data?.find((profile) => profile.id === chosenId) ?? list.data?.[0];
  const stacks = useProfileStacks(runId, chosen?.id ?? null);
  const read = useMemo(
    () => (stacks.data === undefined ? undefined : readStacks(stacks.data)),
    [stacks.data],
  );
  return {
    list,
    chosen,
    choose: setChosenId,
    flame: { isPending: read === undefined, error: stacks.error, data: read },
  };
}

/** The API's speedscope document as a tree; a document of another shape says why. */
export function readStacks(document: unknown): FlameRead {
  try {
    return { tree: flameTree(stacksFromSpeedscope(document)) };
  } catch (error) {
    return { error: errorMessage(error) };
  }
}
