/** What an audit event changed, in one line for the audit log's table. */

type Values = Record<string, unknown> | null | undefined;

export interface AuditChange {
  action: "create" | "update" | "delete" | "refused";
  before?: Values;
  after?: Values;
}

/** The fields a reader knows a thing by, first found wins. */
const NAMES = ["name", "email", "slug", "suite"];

export function describeChange({ action, before, after }: AuditChange): string {
  if (action === "refused") {
    // A message the lab did not believe: what it was and why (`latlab.hosts.trust`).
    return `refused ${show(after?.task)}: ${show(after?.reason)}`;
  }
  if (action === "update") {
    return Object.keys(after ?? {})
      .map((key) => `${key}: ${show(before?.[key])} → ${show(after?.[key])}`)
      .join("; ");
  }
  const values = (action === "create" ? after : before) ?? {};
  const name = NAMES.find((key) => typeof values[key] === "string");
  const verb = action === "create" ? "created" : "deleted";
  return name === undefined ? verb : `${verb} ${show(values[name])}`;
}

function show(value: unknown): string {
  if (value === null || value === undefined) return "—";
  return typeof value === "string" ? value : JSON.stringify(value);
}
