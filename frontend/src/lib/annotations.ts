import type { AnnotationRead } from "../api/types";
import { formatDateTime } from "./format";
import type { MergedTrendRow } from "./trends";

/** An annotation where a trend draws it: a vertical line just before the first run at or after
 * its moment (between two runs), numbered as the list under the chart numbers it. */
export interface AnnotationMarker {
  number: number;
  x: number;
  annotation: AnnotationRead;
}

/**
 * The annotations a trend's rows place, oldest first: one the lab made at a run sits just
 * before that run's row; any other just before the first row at or after its moment, or just
 * after the last row when it is newer than every run. One older than every row is not drawn
 * (the trend starts after it). Only the annotations of the trend's hosts (or of every host).
 */
export function annotationMarkers(
  rows: Pick<MergedTrendRow, "index" | "t" | "runId">[],
  annotations: AnnotationRead[],
  hosts: Set<string>,
): AnnotationMarker[] {
  if (rows.length === 0) return [];
  const placed = annotations
    .filter((annotation) => annotation.host === null || hosts.has(annotation.host))
    .flatMap((annotation) => {
      const x = place(rows, annotation);
      return x === null ? [] : [{ x, annotation }];
    })
    .sort((a, b) => a.x - b.x || a.annotation.id - b.annotation.id);
  return placed.map((item, index) => ({ ...item, number: index + 1 }));
}

function place(
  rows: Pick<MergedTrendRow, "index" | "t" | "runId">[],
  annotation: AnnotationRead,
): number | null {
  const at = Date.parse(annotation.at);
  const byRun =
    annotation.run_id === null ? undefined : rows.find((row) => row.runId === annotation.run_id);
  if (byRun) return byRun.index - 0.5;
  const next = rows.find((row) => row.t >= at);
  if (next === undefined) return rows.length - 0.5; // after the last row (index length - 1)
  return next.index === 0 && at < next.t ? null : next.index - 0.5;
}

/** "A3 · 2026-12-07 10:02:00 UTC · host vm: kernel 6.1.0-18 -> 6.1.0-21". */
export function annotationTitle(marker: AnnotationMarker): string {
  return `A${String(marker.number)} · ${formatDateTime(marker.annotation.at)} · ${
    marker.annotation.text
  }`;
}
