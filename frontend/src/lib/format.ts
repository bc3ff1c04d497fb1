/** Text for labels, commits and timestamps. */

/** {client: "rust", symbol: "EURUSD.s"} -> "client=rust, symbol=EURUSD.s"; {} -> "(all)". */
export function formatLabels(labels: Record<string, string>): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return "(all)";
  return entries.map(([key, value]) => `${key}=${shortened(value)}`).join(", ");
}

/** Whether a series' labels hold every word of a search (any case): "go p=1000". */
export function labelsMatch(labels: Record<string, string>, search: string): boolean {
  const name = formatLabels(labels).toLowerCase();
  return search
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => name.includes(word));
}

/** Label values may be up to 1,024 characters (a hyperfine command line): a long one is
 * shown by its start and end. */
const LONGEST_SHOWN = 120;

export function shortened(value: string): string {
  if (value.length <= LONGEST_SHOWN) return value;
  return `${value.slice(0, 80)}…${value.slice(-(LONGEST_SHOWN - 81))}`;
}

/** A series' labels (numbers and booleans too) as text. */
export function stringLabels(labels: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).map(([key, value]) => [key, String(value)]));
}

/** Git commits are shown by their first 10 hex digits. */
export function shortCommit(commit: string | null | undefined): string {
  if (!commit) return "—";
  return commit.slice(0, 10);
}

/** "2026-11-22T10:00:12Z" -> "2026-11-22 10:00:12 UTC"; lab hosts and CI log in UTC. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** Seconds between two timestamps, e.g. "12 s", or "—" when unfinished. */
export function formatDuration(startIso: string, endIso: string | null | undefined): string {
  if (!endIso) return "—";
  const ms = new Date(endIso).getTime() - new Date(startIso).getTime();
  if (!Number.isFinite(ms) || ms < 0) return "—";
  const seconds = ms / 1000;
  if (seconds < 60) return `${String(Number(seconds.toFixed(1)))} s`;
  const minutes = Math.floor(seconds / 60);
  return `${String(minutes)} min ${String(Math.round(seconds - minutes * 60))} s`;
}

/** Trials per series: the run's repetitions (series may differ when one failed). */
export function trialsPerSeries(series: readonly { trials: readonly unknown[] }[]): string {
  const counts = [...new Set(series.map((item) => item.trials.length))].sort((a, b) => a - b);
  if (counts.length === 0) return "0";
  return counts.length === 1 ? String(counts[0]) : `${counts[0]}–${counts[counts.length - 1]}`;
}

/** "Jobs" -> "Jobs · latlab": a browser tab's title. */
export function pageTitle(title: string): string {
  return title === "" ? "latlab" : `${title} · latlab`;
}
