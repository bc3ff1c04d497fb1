/**
 * How the run page's summary table fits its box: labels every series shares are said once
 * above it, the rest name the rows; latency columns are chosen by the reader (a few by
 * default), throughput always shows.
 */

/** Labels with one value across all series (when there are several series), and the keys
 * whose values differ. */
export function splitLabels(series: { labels: Record<string, unknown> }[]): {
  common: Record<string, string>;
  varying: string[];
} {
  const keys = [...new Set(series.flatMap((item) => Object.keys(item.labels)))];
  const common: Record<string, string> = {};
  const varying: string[] = [];
  for (const key of keys) {
    const values = new Set(series.map((item) => String(item.labels[key] ?? "")));
    const [only] = values;
    if (series.length > 1 && values.size === 1 && only !== undefined && only !== "") {
      common[key] = only;
    } else {
      varying.push(key);
    }
  }
  return { common, varying };
}

/** The row's name: its varying labels ("(all)" when none vary). */
export function rowLabels(
  labels: Record<string, unknown>,
  varying: string[],
): Record<string, string> {
  return Object.fromEntries(
    varying.filter((key) => key in labels).map((key) => [key, String(labels[key])]),
  );
}

/** The latency columns shown until the reader picks others. */
export const DEFAULT_COLUMNS = ["p50", "p90", "p99", "p999", "max"];

/** A relative change of `value` from `base` in percent (null when it cannot be said). */
export function changePct(value: number | null | undefined, base: number | null | undefined) {
  if (value == null || base == null || base === 0) return null;
  return ((value - base) / Math.abs(base)) * 100;
}
