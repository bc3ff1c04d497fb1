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
 * error with a retry, or its data rendered by `children`. */
export function QueryResult<T>({
  query,
  loading,
  missing,
  children,
}: {
  query: UseQueryResult<T>;
  loading: string;
  missing: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading label={loading} />;
  if (query.isError) {
    if (query.error instanceof ApiError && query.error.status === 404) {
      return <EmptyState title={missing}>{query.error.message}</EmptyState>;
    }
    return <ErrorState message={errorMessage(query.error)} onRetry={() => void query.refetch()} />;
  }
  return <>{children(query.data)}</>;
}
