import type { ReactNode } from "react";

/** A column's header: its text, or its text and class (`num`: a column of numbers). */
export type Column = ReactNode | { label: ReactNode; className?: string; key?: string };

/** A right-aligned column of numbers. */
export function num(label: ReactNode, key?: string): Column {
  return { label, className: "num", key };
}

/** A column of buttons, named for screen readers only. */
export function hidden(label: string): Column {
  return { label: <span className="visually-hidden">{label}</span>, key: label };
}

/**
 * A table's header row, a `th scope="col"` per column; a column that is false, null or
 * undefined is left out (one shown only sometimes).
 */
export function TableHead({ columns }: { columns: Column[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column, index) => {
          if (column === false || column === null || column === undefined) return null;
          const { label, className, key } = isSpec(column) ? column : { label: column };
          return (
            <th
              key={key ?? (typeof label === "string" ? label : index)}
              scope="col"
              className={className}
            >
              {label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}

function isSpec(column: Column): column is { label: ReactNode; className?: string; key?: string } {
  return typeof column === "object" && column !== null && "label" in column;
}
