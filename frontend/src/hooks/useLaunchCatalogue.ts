import type { QueryState } from "../api/hooks";
import { useHosts, useSuites } from "../api/hosts";
import type { SuiteRead } from "../api/types";
import { hostTags } from "../lib/overview";

/** What the launch form offers: the suite catalogue, and the tags the hosts have. */
export interface LaunchCatalogue {
  suites: QueryState<SuiteRead[]>;
  knownTags: string[];
}

/** The launch form's catalogue, read only when the user may launch (`enabled`). */
export function useLaunchCatalogue(enabled: boolean): LaunchCatalogue {
  const suites = useSuites(enabled);
  const hosts = useHosts(10_000, enabled);
  return { suites, knownTags: hostTags(hosts.data ?? []) };
}
