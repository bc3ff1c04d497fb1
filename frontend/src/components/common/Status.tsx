import type { ReactElement, ReactNode } from "react";

import { ApiError, errorMessage } from "../../api/client";
import type { QueryState } from "../../api/hooks";

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

/** The statuses that say the thing asked for is not there (rather than that asking failed). */
const MISSING = [404];

/**
 * A query's state: failed (with `missing`, the thing asked for is not there, a 404 that
 * `missing` titles or replaces; any other failure titled `title`, with a retry when the query
 * can be asked again), loading (`loading` says it; null: nothing shows), nothing to show
 * (`isEmpty`, then `empty`), or its data rendered by `children`. `errorFrame` puts a failure
 * in its place on the page. The one way anything shows a query.
 */
export function QueryResult<T>({
  query,
  loading,
  title,
  missing,
  missingStatuses = MISSING,
  isEmpty,
  empty,
  errorFrame = (state) => state,
  children,
}: {
  query: QueryState<T>;
  loading?: string | null;
  title?: string;
  missing?: string | ReactElement;
  missingStatuses?: readonly number[];
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  errorFrame?: (state: ReactElement) => ReactNode;
  children: (data: T) => ReactNode;
}) {
  const { error, refetch } = query;
  if (error) {
    if (
      missing !== undefined &&
      error instanceof ApiError &&
      missingStatuses.includes(error.status)
    ) {
      if (typeof missing !== "string") return missing;
      return <EmptyState title={missing}>{error.message}</EmptyState>;
    }
    const retry = refetch && (() => void refetch());
    return errorFrame(<ErrorState title={title} message={errorMessage(error)} onRetry={retry} />);
  }
  if (query.isPending) return loading === null ? null : <Loading label={loading} />;
  const data = query.data as T;
  if (isEmpty?.(data)) return <>{empty}</>;
  return <>{children(data)}</>;
}
