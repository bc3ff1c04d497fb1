import type { SuiteRead } from "../../api/types";
import type { LaunchCatalogue } from "../../hooks/useLaunchCatalogue";
import { EmptyState, QueryResult } from "../common/Status";
import { JobLaunchForm, type RepoLaunch } from "./JobLaunchForm";

/**
 * The launch form over the suite catalogue, once it is loaded: every suite, or with `repo`
 * those that build a repository's code (launched from the repository's page).
 */
export function LaunchPanel({
  catalogue,
  onLaunched,
  title,
  repo,
}: {
  catalogue: LaunchCatalogue;
  onLaunched: (ids: number[]) => void;
  title?: string;
  repo?: RepoLaunch;
}) {
  const offered = (suites: SuiteRead[]) =>
    repo === undefined ? suites : suites.filter((suite) => suite.builds_repo);
  return (
    <QueryResult
      query={catalogue.suites}
      loading="Loading the suite catalogue…"
      title="Could not load the suite catalogue"
      isEmpty={(suites) => offered(suites).length === 0}
      empty={
        repo === undefined ? (
          <EmptyState title="No suites to launch">
            The catalogue lists what online hosts advertise: start a runner worker on a host.
          </EmptyState>
        ) : (
          <EmptyState title="No suite builds a repository">
            A suite that builds a repository&apos;s code (http-order, harness) is offered once an
            online host advertises it: start a runner worker on a host.
          </EmptyState>
        )
      }
    >
      {(suites) => (
        <JobLaunchForm
          suites={offered(suites)}
          knownTags={catalogue.knownTags}
          onLaunched={onLaunched}
          title={title}
          repo={repo}
        />
      )}
    </QueryResult>
  );
}
