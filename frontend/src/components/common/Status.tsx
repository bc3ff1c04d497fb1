import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";

import { ApiError, errorMessage } from "../../api/client";

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p className="status status-loading" role="status" aria-live="polite">
      {label}
    </p>
  );
}

export function ErrorState({
  title = "Could not load this page",
  message,
  onRetry,
}: {
  title?: string;
  message: string;
  onRetry?: () => void;
}) {
  return (
    <div className="status status-error" role="alert">
      <strong>{title}</strong>
      <p>{message}</p>
      {onRetry && (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="status status-empty">
      <strong>{title}</strong>
      {children && <p>{children}</p>}
    </div>
  );
}

/** A query's state: loading, the thing asked for missing (a 404, `missing` titles it), another
 * error with a retry, nothing to show (`isEmpty`, then `empty`), or its data rendered by
 * `children`. The one way a page shows a query. */
export function QueryResult<T>({
  query,
  loading,
  missing = "Not found",
  isEmpty,
  empty,
  children,
}: {
  query: UseQueryResult<T>;
  loading: string;
  missing?: string;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading label={loading} />;
  if (query.isError) {
    if (query.error instanceof ApiError && query.error.status === 404) {
      return <EmptyState title={missing}>{query.error.message}</EmptyState>;
    }
    return <ErrorState message={errorMessage(query.error)} onRetry={() => void query.refetch()} />;
  }
  if (isEmpty?.(query.data)) return <>{empty}</>;
  return <>{children(query.data)}</>;
}
