import { Fragment } from "react";

import type { ChangedFrame } from "../../lib/flamegraph";
import { num, TableHead } from "../common/TableHead";

/**
 * The frames whose self share (samples with the frame on the CPU, a share of each side's own
 * samples) changed most, largest first; their total share (anywhere on the stack) beside it.
 */
export function ChangedFramesTable({ rows, label }: { rows: ChangedFrame[]; label: string }) {
  if (rows.length === 0) {
    return <p className="muted">No frame&apos;s self share changed by 0.05 percentage points.</p>;
  }
  return (
    <table className="table compact changed-frames" aria-label={label}>
      <caption className="muted small">
        Self share: samples with the frame on the CPU, a share of each side&apos;s own samples;
        total: the change of its share anywhere on the stack.
      </caption>
      <TableHead
        columns={["Frame", num("Baseline"), num("Candidate"), num("Change"), num("Total")]}
      />
      <tbody>
        {rows.map((row) => (
          <tr key={row.frame} data-frame={row.frame} data-change={row.direction}>
            <th scope="row" className="wrap mono">
              <Breakable name={row.frame} />
            </th>
            <td className="num">{row.baseline}</td>
            <td className="num">{row.candidate}</td>
            <td className={`num nowrap flame-${row.direction}`}>
              {row.change} <span className="small">{row.direction}</span>
            </td>
            <td className="num nowrap muted">{row.totalChange}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A frame's name that may wrap after each "::" or "." (order_server::<wbr>spin_work). */
function Breakable({ name }: { name: string }) {
  const parts = name.split(/(?<=::|\.)/);
  return (
    <>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </>
  );
}
