import { useMemo } from "react";

import { useRules } from "../api/alerts";
import { useTrends, type TrendsResult } from "../api/analysis";
import { useAnnotations } from "../api/annotations";
import type { TrendQuery, TrendRead } from "../api/types";
import { annotationMarkers, type AnnotationMarker } from "../lib/annotations";
import { formatLabels } from "../lib/format";
import {
  changeMarkers,
  matchingThresholds,
  mergeTrendRows,
  windowBand,
  type MergedTrendRow,
  type SeriesChoice,
  type Threshold,
  type TrendLine,
} from "../lib/trends";

/** Which trend: a metric of some series of a scenario, on one history (the branch, host,
 * range and params; `runId`: the history of that run, its point included). */
export interface TrendChoice {
  suite: string;
  scenario: string;
  metric: string;
  series: SeriesChoice[];
  branch: string | null;
  host: string | null;
  days: string | null;
  params: string | null;
  runId: number | null;
}

/** A trend as its chart draws it: each series' history, merged into rows of runs; the lines
 * with their change points and window; the annotations and SLA thresholds that apply. */
export interface Trend {
  trends: TrendsResult;
  /** The series' trends read so far, in order. */
  loaded: TrendRead[];
  rows: MergedTrendRow[];
  lines: TrendLine[];
  markers: AnnotationMarker[];
  thresholds: Threshold[];
  unit: string;
  direction: string;
}

/** Reads a trend (a request per series), the project's rules and the annotations over it. */
export function useTrend(choice: TrendChoice): Trend {
  const { suite, scenario, metric, series, branch, host, days, params, runId } = choice;
  const queries = useMemo(
    () =>
      series.map((item): TrendQuery => ({
        suite,
        scenario,
        metric,
        labels: item.key,
        ...(branch ? { branch } : {}),
        ...(host ? { host } : {}),
        ...(days ? { since: sinceDays(Number(days)) } : {}),
        ...(params ? { params } : {}),
        ...(runId !== null ? { run_id: runId } : {}),
      })),
    [series, suite, scenario, metric, branch, host, days, params, runId],
  );
  const trends = useTrends(queries);
  const rules = useRules();

  const loaded = trends.data.filter((trend): trend is TrendRead => trend !== undefined);
  const chart = useMemo(() => {
    const withKeys = series.flatMap((item, index) => {
      const trend = trends.data[index];
      return trend ? [{ key: item.key, labels: item.labels, trend, index }] : [];
    });
    const rows = mergeTrendRows(
      withKeys.map((item) => ({ key: item.key, points: item.trend.points })),
    );
    const lines: TrendLine[] = withKeys.map((item) => ({
      key: item.key,
      name: formatLabels(item.labels),
      seriesIndex: item.index,
      changes: changeMarkers(item.trend.points, item.trend.change_points, rows),
      window: windowBand(rows, item.trend.window),
    }));
    const hosts = new Set(
      withKeys.flatMap((item) => item.trend.points.flatMap((p) => p.host_name ?? [])),
    );
    return { rows, lines, hosts };
  }, [series, trends.data]);
  const first = chart.rows[0];
  const annotations = useAnnotations(
    {
      suite,
      since: first ? new Date(first.t).toISOString() : undefined,
      limit: 500,
    },
    first !== undefined,
  );
  const markers = useMemo(
    () => annotationMarkers(chart.rows, annotations.data ?? [], chart.hosts),
    [chart, annotations.data],
  );

  const unit = loaded[0]?.unit ?? "";
  const thresholds = useMemo(() => {
    const found = new Map<number, Threshold>();
    for (const item of series) {
      for (const threshold of matchingThresholds(
        rules.data ?? [],
        { suite, scenario, metric, labels: item.labels },
        unit,
      )) {
        found.set(threshold.ruleId, threshold);
      }
    }
    return [...found.values()];
  }, [rules.data, series, suite, scenario, metric, unit]);

  return {
    trends,
    loaded,
    rows: chart.rows,
    lines: chart.lines,
    markers,
    thresholds,
    unit,
    direction: loaded[0]?.direction ?? "none",
  };
}

/** The start of a range of `days` days back, at midnight UTC (stable within a day, so the
 * query key does not change on every render). */
function sinceDays(days: number): string {
  const today = new Date();
  today.setUTCHours(0, 0, 0, 0);
  return new Date(today.getTime() - days * 86_400_000).toISOString();
}
