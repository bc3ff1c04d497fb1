import type { ReactElement, ReactNode } from "react";

import type { QueryState } from "../api/hooks";
import { MissingRuns } from "../components/common/MissingRuns";
import { QueryResult } from "../components/common/Status";
import { isNotFound, useOpenInRunProject } from "../hooks/useOpenInRunProject";

/**
 * What a page shows of a query about the runs its URL names (a run, a comparison): runs of
 * another project of the user's (a shared link, an alert's) are opened there (MissingRuns);
 * else the query's state, `missing` saying which run is not there.
 */
export function RunsResult<T>({
  query,
  runIds,
  loading,
  missing,
  children,
}: {
  query: QueryState<T>;
  runIds: number[];
  loading: string;
  missing: string | ReactElement;
  children: (data: T) => ReactNode;
}) {
  const home = useOpenInRunProject(runIds, isNotFound(query.error));
  return (
    <MissingRuns home={home} runIds={runIds}>
      <QueryResult query={query} loading={loading} missing={missing}>
        {children}
      </QueryResult>
    </MissingRuns>
  );
}
