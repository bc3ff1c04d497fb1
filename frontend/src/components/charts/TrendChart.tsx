import { ReferenceArea, ReferenceDot, ReferenceLine } from "recharts";

import type { AnnotationMarker } from "../../lib/annotations";
import {
  indexTicks,
  rowLabels,
  type MergedTrendRow,
  type Threshold,
  type TrendLine,
  type WindowBand,
} from "../../lib/trends";
import { formatValue } from "../../lib/units";
import { ChartToolbar, useChartView } from "./ChartView";
import { colour } from "./palette";
import { SeriesChart, type ChartLine } from "./SeriesChart";

/**
 * A metric run after run, a line per series: the x axis is the runs' order (labelled with
 * their commits), so runs started in the same second each have their own point. Change points
 * as a dot on the run after the change and a dashed vertical line, the latest run's window as
 * a band from its centre to its bound, SLA thresholds as horizontal lines, annotations as
 * grey vertical lines between two runs (a range as a grey band), numbered. Clicking a point
 * opens its run.
 */
export function TrendChart({
  rows,
  lines,
  thresholds,
  annotations = [],
  unit,
  onOpenRun,
  height = 380,
}: {
  rows: MergedTrendRow[];
  lines: TrendLine[];
  thresholds: Threshold[];
  annotations?: AnnotationMarker[];
  unit: string;
  onOpenRun: (runId: number) => void;
  height?: number;
}) {
  const format = (value: number) => formatValue(value, unit);
  const view = useChartView(lines.map((line) => line.name));
  const [first, last] = view.zoom ?? [0, rows.length - 1];
  const labels = rowLabels(rows);
  const label = (index: unknown) => (typeof index === "number" ? (labels[index] ?? "") : "");
  const drawn = lines.map(
    (line): ChartLine<MergedTrendRow> => ({
      key: line.key,
      name: line.name,
      value: (row) => row.values[line.key],
      colourIndex: line.seriesIndex,
      dot: (props) => {
        const row = props.payload as MergedTrendRow;
        if (props.cx == null || props.cy == null || row.values[line.key] === undefined) {
          return <g key={`${line.key}-${String(props.index)}`} />;
        }
        return (
          <circle
            key={`${line.key}-${String(props.index)}`}
            className="trend-point"
            data-run-id={row.runId}
            cx={props.cx}
            cy={props.cy}
            r={4}
            fill="var(--surface)"
            stroke={colour(line.seriesIndex)}
            strokeWidth={2}
            onClick={() => row.runId !== null && onOpenRun(row.runId)}
          />
        );
      },
      // The hover highlight lets clicks through to the point under it, which opens
      // the run (a highlight catching them made clicks depend on the hover's timing).
      activeDot: (props) => (
        <circle
          className="trend-point-active"
          cx={props.cx}
          cy={props.cy}
          r={6}
          fill={colour(line.seriesIndex)}
          pointerEvents="none"
        />
      ),
    }),
  );
  return (
    <figure className="chart" aria-label="Metric over time">
      <ChartToolbar view={view} />
      <SeriesChart
        rows={rows}
        lines={drawn}
        view={view}
        x={{
          dataKey: "index",
          at: atIndex,
          domain: [0, Math.max(rows.length - 1, 1)],
          format: label,
          ticks: indexTicks(Math.ceil(first), Math.floor(last)),
          allowDecimals: false,
          padding: { left: 12, right: 12 },
        }}
        format={format}
        yWidth={88}
        tooltipLabel={(_, payload) => {
          const row = payload[0]?.payload as MergedTrendRow | undefined;
          if (!row) return "";
          const when = formatTime(row.t);
          if (row.runId === null) return `day of ${when}`;
          const commit = row.commit ? ` · ${row.commit}` : "";
          return `run #${String(row.runId)}${commit} · ${when}`;
        }}
        height={height}
        margin={{ top: 16, right: 32, bottom: 8, left: 8 }}
        over={lines.flatMap((line) =>
          line.changes.map((change) => (
            <ReferenceDot
              key={`cpd-${line.key}-${String(change.x)}`}
              x={change.x}
              y={change.value}
              r={7}
              fill="none"
              stroke={colour(line.seriesIndex)}
              strokeWidth={2}
            />
          )),
        )}
      >
        {lines.flatMap((line) => (line.window ? [windowBand(line, line.window, format)] : []))}
        {thresholds.map((threshold) => (
          <ReferenceLine
            key={`sla-${String(threshold.ruleId)}`}
            y={threshold.value}
            ifOverflow="extendDomain"
            stroke={
              threshold.severity === "critical" ? "var(--sla-critical)" : "var(--sla-warning)"
            }
            strokeDasharray="4 4"
            label={{ value: `SLA: ${threshold.name}`, position: "insideTopRight", fontSize: 12 }}
          />
        ))}
        {annotations.map((marker) => {
          const label = {
            value: `A${String(marker.number)}`,
            position: "insideBottomLeft" as const,
            fontSize: 12,
          };
          return marker.x2 === null ? (
            <ReferenceLine
              key={`an-${String(marker.annotation.id)}`}
              x={marker.x}
              ifOverflow="extendDomain"
              stroke="var(--annotation)"
              strokeWidth={1.5}
              className="trend-annotation"
              label={label}
            />
          ) : (
            <ReferenceArea
              key={`an-${String(marker.annotation.id)}`}
              x1={marker.x}
              x2={marker.x2}
              ifOverflow="extendDomain"
              fill="var(--annotation)"
              fillOpacity={0.12}
              stroke="var(--annotation)"
              strokeOpacity={0.5}
              className="trend-annotation trend-annotation-range"
              label={label}
            />
          );
        })}
        {lines.flatMap((line) =>
          line.changes.map((change) => (
            <ReferenceLine
              key={`cpl-${line.key}-${String(change.x)}`}
              x={change.x}
              stroke={colour(line.seriesIndex)}
              strokeDasharray="2 4"
              label={{ value: change.label, position: "top", fontSize: 12 }}
            />
          )),
        )}
      </SeriesChart>
    </figure>
  );
}

const atIndex = (row: MergedTrendRow) => row.index;

/**
 * A window as a shaded band from its centre to its bound over its runs, the bound dashed: a
 * run past the bound fails. Clicks pass through it to the points (styles/content.css).
 */
function windowBand(line: TrendLine, band: WindowBand, format: (value: number) => string) {
  const stroke = colour(line.seriesIndex);
  return [
    <ReferenceArea
      key={`wa-${line.key}`}
      x1={band.x1}
      x2={band.x2}
      y1={Math.min(band.centre, band.bound)}
      y2={Math.max(band.centre, band.bound)}
      ifOverflow="extendDomain"
      fill={stroke}
      fillOpacity={0.08}
      stroke="none"
      className="trend-window"
    />,
    <ReferenceLine
      key={`wc-${line.key}`}
      segment={[
        { x: band.x1, y: band.centre },
        { x: band.x2, y: band.centre },
      ]}
      stroke={stroke}
      strokeOpacity={0.6}
      ifOverflow="extendDomain"
    />,
    <ReferenceLine
      key={`wb-${line.key}`}
      segment={[
        { x: band.x1, y: band.bound },
        { x: band.x2, y: band.bound },
      ]}
      stroke={stroke}
      strokeDasharray="6 3"
      ifOverflow="extendDomain"
      label={{ value: `bound ${format(band.bound)}`, position: "insideTopLeft", fontSize: 12 }}
    />,
  ];
}

/** UTC: "2026-11-22 10:00:05 UTC". */
function formatTime(t: number): string {
  return `${new Date(t).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}
