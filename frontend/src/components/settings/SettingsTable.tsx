import type { ReactNode } from "react";

import { errorMessage } from "../../api/client";
import { ErrorState, Loading } from "../common/Status";

/** A list as its query holds it: loading, failed, or loaded. */
export interface ListQuery<T> {
  isPending: boolean;
  isError: boolean;
  error: Error | null;
  data: T[] | undefined;
  refetch: () => unknown;
}

/**
 * A settings list as a table, one row per item (the caller renders each `<tr>`, keyed), with
 * what stands in for it while its query loads or fails, or when it is empty, and under it the
 * failure of the last action taken on a row.
 */
export function SettingsTable<T>({
  className,
  columns,
  actions = false,
  rows,
  loading,
  empty,
  error,
  children: row,
}: {
  /** The table's own class, e.g. "users-table". */
  className: string;
  columns: string[];
  /** A last column of buttons, named for screen readers only. */
  actions?: boolean;
  /** The items, or the query that fetches them. */
  rows: readonly T[] | ListQuery<T>;
  /** What the query's loading says. */
  loading?: string;
  /** Shown instead of an empty table. */
  empty?: ReactNode;
  error?: string | null;
  children: (item: T) => ReactNode;
}) {
  const table = (items: readonly T[]) => (
    <Table className={className} columns={columns} actions={actions} empty={empty}>
      {items.map(row)}
    </Table>
  );
  let body: ReactNode;
  if (!("isPending" in rows)) body = table(rows);
  else if (rows.isPending) body = <Loading label={loading} />;
  else if (rows.isError)
    body = <ErrorState message={errorMessage(rows.error)} onRetry={() => void rows.refetch()} />;
  else body = table(rows.data ?? []);
  return (
    <>
      {body}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

function Table({
  className,
  columns,
  actions,
  empty,
  children: rows,
}: {
  className: string;
  columns: string[];
  actions: boolean;
  empty: ReactNode;
  children: ReactNode[];
}) {
  if (rows.length === 0 && empty !== undefined) return empty;
  return (
    <div className="table-scroll">
      <table className={`table ${className}`}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            {actions && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{rows}</tbody>
      </table>
    </div>
  );
}
