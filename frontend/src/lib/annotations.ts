import type { AnnotationQuery, AnnotationRead, RunRead } from "../api/types";
import { formatDateTime } from "./format";
import type { MergedTrendRow } from "./trends";

/** An annotation where a trend draws it: a vertical line just before the first run at or after
 * its moment (between two runs), or a band to just before the first run after its range's
 * end (`x2`), numbered as the list under the chart numbers it. */
export interface AnnotationMarker {
  number: number;
  x: number;
  x2: number | null;
  annotation: AnnotationRead;
}

type Row = Pick<MergedTrendRow, "index" | "t" | "runId">;

/**
 * The annotations a trend's rows place, oldest first: one the lab made at a run sits just
 * before that run's row; any other just before the first row at or after its moment, or just
 * after the last row when it is newer than every run. One older than every row is not drawn
 * (the trend starts after it), nor a range that ended before it; a range that began before it
 * starts at its left edge. Only the annotations of the trend's hosts (or of every host).
 */
export function annotationMarkers(
  rows: Row[],
  annotations: AnnotationRead[],
  hosts: Set<string>,
): AnnotationMarker[] {
  const first = rows[0];
  if (first === undefined) return [];
  const placed = annotations
    .filter((annotation) => annotation.host === null || hosts.has(annotation.host))
    .flatMap((annotation): Omit<AnnotationMarker, "number">[] => {
      const at = Date.parse(annotation.at);
      if (annotation.until !== null) {
        const until = Date.parse(annotation.until);
        if (until < first.t) return [];
        return [{ x: at < first.t ? -0.5 : before(rows, at), x2: before(rows, until), annotation }];
      }
      const byRun =
        annotation.run_id === null ? undefined : rows.find((row) => row.runId === annotation.run_id);
      if (byRun) return [{ x: byRun.index - 0.5, x2: null, annotation }];
      return at < first.t ? [] : [{ x: before(rows, at), x2: null, annotation }];
    })
    .sort((a, b) => a.x - b.x || a.annotation.id - b.annotation.id);
  return placed.map((item, index) => ({ ...item, number: index + 1 }));
}

/** Just before the first row at or after `t`; after the last row when every row is older. */
function before(rows: Row[], t: number): number {
  const next = rows.find((row) => row.t >= t);
  return (next?.index ?? rows.length) - 0.5;
}

/** "A3 · 2026-12-07 10:02:00 UTC · host vm: kernel 6.1.0-18 -> 6.1.0-21"; a range reads
 * "from ... to ...". */
export function annotationTitle(marker: AnnotationMarker): string {
  const { at, until, text } = marker.annotation;
  const when =
    until === null ? formatDateTime(at) : `${formatDateTime(at)} to ${formatDateTime(until)}`;
  return `A${String(marker.number)} · ${when} · ${text}`;
}

const DAY_MS = 86_400_000;
/** How far before a run an annotation is worth its reader's eye (a deploy last week), and
 * after (the same day's). */
const BEFORE_DAYS = 7;
const AFTER_DAYS = 1;

/** The annotations near a run: of its suite (or every suite) and host (or every host), from a
 * week before it to a day after. */
export function nearRunQuery(
  run: Pick<RunRead, "suite" | "host_name" | "started_at">,
): AnnotationQuery {
  const started = Date.parse(run.started_at);
  return {
    suite: run.suite,
    ...(run.host_name ? { host: run.host_name } : {}),
    since: new Date(started - BEFORE_DAYS * DAY_MS).toISOString(),
    until: new Date(started + AFTER_DAYS * DAY_MS).toISOString(),
    limit: 20,
  };
}

/** "3 h before the run", "at the run", "20 min after the run". */
export function relativeToRun(ms: number): string {
  const minutes = Math.round(Math.abs(ms) / 60_000);
  if (minutes === 0) return "at the run";
  const amount =
    minutes < 120
      ? `${String(minutes)} min`
      : minutes < 48 * 60
        ? `${String(Math.round(minutes / 60))} h`
        : `${String(Math.round(minutes / 1440))} days`;
  return `${amount} ${ms < 0 ? "before" : "after"} the run`;
}
