import { errorMessage } from "../../api/client";
import { useHosts, useSuites } from "../../api/hosts";
import { EmptyState, ErrorState, Loading } from "../common/Status";
import { JobLaunchForm, type RepoLaunch } from "./JobLaunchForm";

/**
 * The launch form over the suite catalogue, once it is loaded: every suite, or with `repo`
 * those that build a repository's code (launched from the repository's page).
 */
export function LaunchPanel({
  onLaunched,
  title,
  repo,
}: {
  onLaunched: (ids: number[]) => void;
  title?: string;
  repo?: RepoLaunch;
}) {
  const suites = useSuites();
  const hosts = useHosts(10_000);
  const knownTags = [...new Set((hosts.data ?? []).flatMap((host) => host.tags))].sort();
  if (suites.isPending) return <Loading label="Loading the suite catalogue…" />;
  if (suites.isError) {
    return (
      <ErrorState
        title="Could not load the suite catalogue"
        message={errorMessage(suites.error)}
        onRetry={() => void suites.refetch()}
      />
    );
  }
  const offered = repo === undefined ? suites.data : suites.data.filter((s) => s.builds_repo);
  if (offered.length === 0 && repo !== undefined) {
    return (
      <EmptyState title="No suite builds a repository">
        A suite that builds a repository&apos;s code (http-order, harness) is offered once an
        online host advertises it: start a runner worker on a host.
      </EmptyState>
    );
  }
  if (offered.length === 0) {
    return (
      <EmptyState title="No suites to launch">
        The catalogue lists what online hosts advertise: start a runner worker on a host.
      </EmptyState>
    );
  }
  return (
    <JobLaunchForm
      suites={offered}
      knownTags={knownTags}
      onLaunched={onLaunched}
      title={title}
      repo={repo}
    />
  );
}
