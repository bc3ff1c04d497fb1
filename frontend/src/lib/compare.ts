/**
 * Shaping a comparison (baseline vs candidate) into the seed reports' table: metric, baseline,
 * candidate, delta, delta %, verdict. The verdict and the direction come from the API; this
 * module only says how to show them.
 */

import type { Direction, SeriesDelta, Verdict } from "../api/types";
import { formatLabels, labelsMatch, stringLabels } from "./format";
import { formatDelta, formatDeltaPct, formatValue } from "./units";
import { metricLabel } from "./vocabulary";

/** How a verdict or a change reads: good news, bad news, nothing, or not known. */
export type Tone = "good" | "bad" | "neutral" | "unknown";

export interface CompareRow {
  metric: string;
  label: string;
  unit: string;
  baseline: string;
  candidate: string;
  delta: string;
  deltaPct: string;
  /**
   * Good or bad by the metric's direction, when the verdict found the change significant;
   * "neutral" otherwise, so noise is not painted as news.
   */
  change: Tone;
  verdict: Verdict;
  evidence: string;
  /** False for a tail percentile with too few samples beyond it to trust. */
  reliable: boolean;
  /** What each side's value is: "median of 5 trials", or "1 trial". */
  baselineOf: string;
  candidateOf: string;
}

export interface CompareGroup {
  key: string;
  name: string;
  rows: CompareRow[];
}

export const VERDICT_TONE: Readonly<Record<Verdict, Tone>> = {
  improved: "good",
  regressed: "bad",
  unchanged: "neutral",
  inconclusive: "unknown",
};

/** Whether a change is for the better: a lower p99 is good, a lower throughput is not. */
export function changeTone(delta: number, direction: Direction): Tone {
  if (direction === "none" || !Number.isFinite(delta)) return "unknown";
  if (delta === 0) return "neutral";
  const better = direction === "lower" ? delta < 0 : delta > 0;
  return better ? "good" : "bad";
}

export function compareGroups(series: SeriesDelta[]): CompareGroup[] {
  return series.map((item) => ({
    key: `${String(item.baseline_series_id)}-${String(item.candidate_series_id)}`,
    name: formatLabels(
      stringLabels(item.labels),
    ),
    rows: item.metrics.map((metric) => ({
      metric: metric.metric,
      label: metricLabel(metric.metric, metric),
      unit: metric.unit,
      baseline: formatValue(metric.baseline, metric.unit),
      candidate: formatValue(metric.candidate, metric.unit),
      delta: formatDelta(metric.delta, metric.unit),
      deltaPct: formatDeltaPct(metric.delta_pct),
      change:
        metric.verdict === "improved" || metric.verdict === "regressed"
          ? changeTone(metric.delta, metric.direction)
          : "neutral",
      verdict: metric.verdict,
      evidence: metric.evidence,
      reliable: metric.reliable,
      baselineOf: trialsOf(metric.baseline_trials),
      candidateOf: trialsOf(metric.candidate_trials),
    })),
  }));
}

/** What a compared value is: the median of its trials, or its one trial. */
export function trialsOf(trials: number): string {
  return trials > 1 ? `median of ${String(trials)} trials` : `${String(trials)} trial`;
}

/**
 * The names of the two sides: the labels that tell them apart when one run's series are
 * compared with each other (server=go vs server=zig: "go" and "zig"), else "baseline" and
 * "candidate".
 */
export function sideNames(
  baseline: Record<string, string>,
  candidate: Record<string, string>,
): { baseline: string; candidate: string } {
  const keys = Object.keys(baseline).filter((key) => baseline[key] !== candidate[key]);
  if (keys.length === 0) return { baseline: "baseline", candidate: "candidate" };
  return {
    baseline: keys.map((key) => baseline[key]).join(" "),
    candidate: keys.map((key) => candidate[key] ?? "").join(" "),
  };
}

/** Two runs as a comparison names them: "Run #9 [server=zig] against #9 [server=go]" (the
 * labels when only some of a run's series are compared). */
export function comparedRuns(compare: {
  baseline: { id: number };
  candidate: { id: number };
  baseline_labels: Record<string, string>;
  candidate_labels: Record<string, string>;
}): string {
  const selector = (labels: Record<string, string>) =>
    Object.keys(labels).length > 0 ? ` [${formatLabels(labels)}]` : "";
  return (
    `Run #${String(compare.candidate.id)}${selector(compare.candidate_labels)} ` +
    `against #${String(compare.baseline.id)}${selector(compare.baseline_labels)}`
  );
}

/** A group's rows with a significant verdict (or an untrustworthy one) and those unchanged. */
export function splitUnchanged(rows: CompareRow[]): { shown: CompareRow[]; unchanged: CompareRow[] } {
  return {
    shown: rows.filter((row) => row.verdict !== "unchanged"),
    unchanged: rows.filter((row) => row.verdict === "unchanged"),
  };
}

export interface VerdictCounts {
  regressed: number;
  improved: number;
  unchanged: number;
  inconclusive: number;
}

export function countVerdicts(series: SeriesDelta[]): VerdictCounts {
  const counts: VerdictCounts = { regressed: 0, improved: 0, unchanged: 0, inconclusive: 0 };
  for (const item of series) for (const metric of item.metrics) counts[metric.verdict] += 1;
  return counts;
}

/**
 * One line for the page header: "1 regressed, 2 improved", "no significant change", or, when
 * no metric was compared at all (no series in common), says so rather than "no change".
 */
export function verdictHeadline(counts: VerdictCounts): string {
  const compared = counts.regressed + counts.improved + counts.unchanged + counts.inconclusive;
  if (compared === 0) return "nothing compared: the runs have no series in common";
  const parts: string[] = [];
  if (counts.regressed > 0) parts.push(`${String(counts.regressed)} regressed`);
  if (counts.improved > 0) parts.push(`${String(counts.improved)} improved`);
  if (counts.inconclusive > 0) parts.push(`${String(counts.inconclusive)} inconclusive`);
  return parts.length > 0 ? parts.join(", ") : "no significant change";
}

/**
 * The comparison's address: shareable, and the one alerts link to. With label selectors, only the series carrying them are compared,
 * matched on their other labels: two series of one run ({server: go} vs {server: zig}).
 */
export function compareHref(
  baselineId: number,
  candidateId: number,
  baselineLabels?: Record<string, string>,
  candidateLabels?: Record<string, string>,
): string {
  const query = new URLSearchParams({
    baseline: String(baselineId),
    candidate: String(candidateId),
  });
  if (baselineLabels) query.set("baseline_labels", JSON.stringify(baselineLabels));
  if (candidateLabels) query.set("candidate_labels", JSON.stringify(candidateLabels));
  return `/compare?${query.toString()}`;
}

/** A run id from the address ("12"), or null for anything else. */
export function parseRunId(text: string | null): number | null {
  const value = Number(text);
  return text !== null && text.trim() !== "" && Number.isInteger(value) && value >= 1
    ? value
    : null;
}

/** The selectors of a confirmation run: it measured the baseline's and the candidate's versions. */
export const CONFIRMATION_SELECTORS = {
  baseline: { variant: "baseline" },
  candidate: { variant: "candidate" },
} as const;

/**
 * The differential flame graphs of two runs' CPU profiles, with the comparison's selectors as
 * the API takes them (JSON text, passed through as the compare page got them).
 */
export function profilesHref(query: {
  baseline: number;
  candidate: number;
  baseline_labels?: string | null;
  candidate_labels?: string | null;
  program?: string | null;
}): string {
  const params = new URLSearchParams({
    baseline: String(query.baseline),
    candidate: String(query.candidate),
  });
  if (query.baseline_labels) params.set("baseline_labels", query.baseline_labels);
  if (query.candidate_labels) params.set("candidate_labels", query.candidate_labels);
  if (query.program) params.set("program", query.program);
  return `/compare/profiles?${params.toString()}`;
}

/** A confirmation's own versions compared: variant=baseline against variant=candidate. */
export function confirmationProfilesHref(runId: number): string {
  return profilesHref({
    baseline: runId,
    candidate: runId,
    baseline_labels: JSON.stringify(CONFIRMATION_SELECTORS.baseline),
    candidate_labels: JSON.stringify(CONFIRMATION_SELECTORS.candidate),
  });
}

export interface Picked {
  id: number;
  started_at: string;
}

/** Picked runs, the oldest first (the baseline of a comparison). */
export function oldestFirst<T extends Picked>(picked: T[]): T[] {
  return [...picked].sort(
    (x, y) => new Date(x.started_at).getTime() - new Date(y.started_at).getTime() || x.id - y.id,
  );
}

/** Toggles a run in the selection; a full selection takes no more (the page says so). */
export function togglePick<T extends { id: number }>(picked: T[], run: T, max = 2): T[] {
  if (picked.some((item) => item.id === run.id)) return picked.filter((item) => item.id !== run.id);
  return picked.length >= max ? picked : [...picked, run];
}

const SIGNIFICANT: ReadonlySet<Verdict> = new Set<Verdict>(["regressed", "improved"]);

/** How far a series moved: 0 for a regression, 1 an improvement, 2 neither; then its size. */
function changeKey(item: SeriesDelta): [number, number] {
  const tier = item.metrics.some((m) => m.verdict === "regressed")
    ? 0
    : item.metrics.some((m) => m.verdict === "improved")
      ? 1
      : 2;
  const counted = tier < 2 ? item.metrics.filter((m) => SIGNIFICANT.has(m.verdict)) : item.metrics;
  return [tier, Math.max(0, ...counted.map((m) => Math.abs(m.delta_pct ?? 0)))];
}

/**
 * The series that moved first: regressed ones, then improved ones, each by its largest
 * significant change (|Δ %|), then the rest by their largest change; ties keep their order.
 */
export function orderByChange(series: SeriesDelta[]): SeriesDelta[] {
  const keyed = series.map((item, index) => ({ item, index, key: changeKey(item) }));
  keyed.sort((a, b) => a.key[0] - b.key[0] || b.key[1] - a.key[1] || a.index - b.index);
  return keyed.map(({ item }) => item);
}

export interface SeriesFilter {
  /** Words every shown series' labels contain (any case), e.g. "go p=1000". */
  search: string;
  /** Only series with a metric regressed or improved. */
  changedOnly: boolean;
  /** Only series with a metric regressed. */
  failingOnly: boolean;
}

/** A comparison's series with the filter applied, in their order. */
export function filterSeries(series: SeriesDelta[], filter: SeriesFilter): SeriesDelta[] {
  return series.filter((item) => {
    if (filter.failingOnly && !item.metrics.some((m) => m.verdict === "regressed")) return false;
    if (filter.changedOnly && !item.metrics.some((m) => SIGNIFICANT.has(m.verdict))) return false;
    return labelsMatch(stringLabels(item.labels), filter.search);
  });
}

/**
 * The regressions for the headline, the largest first: "client=go P99 +40.9 %" for each
 * series' largest regressed metric.
 */
export function regressions(series: SeriesDelta[]): string[] {
  return orderByChange(series).flatMap((item) => {
    const worst = item.metrics
      .filter((m) => m.verdict === "regressed")
      .sort((a, b) => Math.abs(b.delta_pct ?? 0) - Math.abs(a.delta_pct ?? 0))[0];
    if (worst === undefined) return [];
    const name = formatLabels(stringLabels(item.labels));
    return [`${name} ${metricLabel(worst.metric, worst)} ${formatDeltaPct(worst.delta_pct)}`];
  });
}
