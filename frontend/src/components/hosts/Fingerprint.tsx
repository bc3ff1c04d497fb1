import type { TuningCheck } from "../../api/types";
import { Badge } from "../common/Badge";
import { TableHead } from "../common/TableHead";

/** A host's fingerprint: what must match for two runs' numbers to be comparable. */
export function Fingerprint({ fingerprint }: { fingerprint: Record<string, unknown> }) {
  const entries = Object.entries(fingerprint);
  if (entries.length === 0) return <p className="muted">No fingerprint recorded.</p>;
  return (
    <dl className="kv">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd className="mono">{showValue(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The host's settings judged against low-latency practice: ok, off, or unknown. */
export function TuningTable({ checks }: { checks: TuningCheck[] }) {
  if (checks.length === 0) return <p className="muted">No tuning checks.</p>;
  return (
    <table className="table tuning-table">
      <TableHead columns={["Setting", "Current", "Recommended", "Check", "Why"]} />
      <tbody>
        {checks.map((check) => (
          <tr key={check.setting}>
            <th scope="row" className="mono">
              {check.setting}
            </th>
            <td className="mono">{check.current ?? "—"}</td>
            <td className="mono">{check.recommended}</td>
            <td>
              {check.ok === true ? (
                <Badge tone="good">ok</Badge>
              ) : check.ok === false ? (
                <Badge tone="bad">off</Badge>
              ) : (
                <Badge tone="unknown">unknown</Badge>
              )}
            </td>
            <td className="wrap small">{check.why}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function showValue(value: unknown): string {
  if (value === null || value === undefined || value === "") return "—";
  if (Array.isArray(value)) return value.map(String).join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
