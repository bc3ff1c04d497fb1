import type { ReactNode } from "react";

import type { QueryState } from "../../api/hooks";
import { QueryResult } from "../common/Status";
import { hidden, TableHead } from "../common/TableHead";

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
  rows: readonly T[] | QueryState<readonly T[]>;
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
  return (
    <>
      {"isPending" in rows ? (
        <QueryResult query={rows} loading={loading}>
          {table}
        </QueryResult>
      ) : (
        table(rows)
      )}
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
        <TableHead columns={[...columns, actions && hidden("Actions")]} />
        <tbody>{rows}</tbody>
      </table>
    </div>
  );
}
