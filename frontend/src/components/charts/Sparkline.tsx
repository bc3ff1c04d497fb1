import { Line, LineChart, YAxis } from "recharts";

import { colour } from "./palette";

/**
 * A series' recent history in a table cell: its values oldest first, no axes; the caller
 * says what it is in `label` (the accessible name and the hover title), and gives `domain`
 * when rows share one scale (else each is scaled to its own range).
 */
export function Sparkline({
  values,
  label,
  domain,
}: {
  values: (number | null)[];
  label: string;
  domain?: [number, number];
}) {
  const data = values.map((value, index) => ({ index, value }));
  return (
    <figure className="sparkline" aria-label={label} title={label}>
      <LineChart width={120} height={28} data={data} margin={{ top: 2, right: 2, bottom: 2, left: 2 }}>
        <YAxis hide domain={domain ?? ["auto", "auto"]} />
        <Line
          dataKey="value"
          type="linear"
          stroke={colour(0)}
          strokeWidth={1.5}
          dot={false}
          connectNulls
          isAnimationActive={false}
        />
      </LineChart>
    </figure>
  );
}
