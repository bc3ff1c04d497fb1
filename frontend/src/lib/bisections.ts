/**
 * A bisection as the dashboard shows it: its status, its range of commits as a strip coloured
 * by what the search knows of each, its steps (try jobs) with their outcome and change, how it
 * ended (a culprit, or a range), and the form that starts one, checked before it is sent.
 */

import type {
  BisectionCommit,
  BisectionCreate,
  BisectionRead,
  BisectionStatus,
  BisectionStep,
  CommitState,
  SuiteRead,
} from "../api/types";
import type { Tone } from "./compare";
import { shortCommit } from "./format";
import { isRecord, problemsByField } from "./params";
import { repoParamInputs } from "./repos";
import { formatInterval, OUTCOME_TONE, type Outcome } from "./tries";
import { formatDeltaPct } from "./units";

export type BisectionTone = Tone | "active";

/** A bisection's page. */
export function bisectionHref(bisectionId: number): string {
  return `/bisections/${String(bisectionId)}`;
}

/** A step's job, highlighted in the jobs list. */
export function jobHref(jobId: number): string {
  return `/jobs?job=${String(jobId)}`;
}

/** How each status reads: found is the search done (the culprit named), failed is it broken. */
export const STATUS: Readonly<Record<BisectionStatus, { text: string; tone: BisectionTone }>> = {
  running: { text: "running", tone: "active" },
  found: { text: "found", tone: "good" },
  "not-reproduced": { text: "not reproduced", tone: "neutral" },
  narrowed: { text: "narrowed", tone: "unknown" },
  failed: { text: "failed", tone: "bad" },
  cancelled: { text: "cancelled", tone: "neutral" },
};

/** What the strip's colours mean, in the legend's order (oldest, good, on the left). */
export const COMMIT_STATES: Readonly<Record<CommitState, { text: string; meaning: string }>> = {
  good: { text: "good", meaning: "measured without the regression, or older than such a commit" },
  unknown: { text: "not known", meaning: "not measured yet" },
  unbuildable: { text: "does not build", meaning: "skipped: its build failed" },
  culprit: { text: "culprit", meaning: "the commit that made it worse" },
  bad: { text: "bad", meaning: "measured with the regression, or newer than such a commit" },
};

/** A strip cell's classes: its state's colour. */
export function commitCellClass(state: CommitState): string {
  return `bisect-cell bisect-cell-${state}`;
}

/** A strip cell's tooltip: "4f1c2e7a9b order: check stock (Order Team): culprit". */
export function commitTitle(commit: BisectionCommit): string {
  const author = commit.author ? ` (${commit.author})` : "";
  const state = COMMIT_STATES[commit.state].text;
  return `${shortCommit(commit.sha)} ${commit.subject}${author}: ${state}`;
}

/** How many commits of the range are in each state, for the legend. */
export function countStates(commits: readonly Pick<BisectionCommit, "state">[]) {
  const counts = Object.fromEntries(
    Object.keys(COMMIT_STATES).map((state) => [state, 0]),
  ) as Record<CommitState, number>;
  for (const commit of commits) counts[commit.state] += 1;
  return counts;
}

/** Which two commits a step measured side by side, by kind. */
export const STEP_KINDS: Readonly<Record<BisectionStep["kind"], string>> = {
  ends: "good vs bad",
  search: "search",
  culprit: "culprit vs parent",
};

/**
 * A step's outcome on the metric as text and tone: the try verdict's (regressed, improved,
 * unchanged, untested: undecided), "does not build" for a head that did not; none yet is
 * "measuring…" while the bisection runs and "not measured" once it ended (its `said` says why).
 */
export function stepOutcome(
  outcome: BisectionStep["outcome"],
  running: boolean,
): { text: string; tone: BisectionTone } {
  if (outcome == null) {
    return running
      ? { text: "measuring…", tone: "active" }
      : { text: "not measured", tone: "neutral" };
  }
  if (outcome === "unbuildable") return { text: "does not build", tone: "neutral" };
  if (outcome in OUTCOME_TONE) return { text: outcome, tone: OUTCOME_TONE[outcome as Outcome] };
  return { text: outcome, tone: "unknown" };
}

/** A relative change with its 95 % interval: "+30% (+28.1% to +31.9%)"; "—" without one. */
export function formatChange(
  change: number | null | undefined,
  interval?: readonly number[] | null,
): string {
  if (change == null || !Number.isFinite(change)) return "—";
  const range = formatInterval(interval);
  const pct = formatDeltaPct(100 * change);
  return range === null ? pct : `${pct} (${range})`;
}

/** The culprit's share of the whole change the ends showed: "62% of the whole change". */
export function formatWholeShare(share: number | null | undefined): string | null {
  if (share == null || !Number.isFinite(share)) return null;
  return `${String(Math.round(100 * share))}% of the whole change`;
}

/** Lab minutes the steps took, one decimal: "12.5 min". */
export function stepMinutes(steps: readonly Pick<BisectionStep, "minutes">[]): string {
  const minutes = steps.reduce((sum, step) => sum + (step.minutes ?? 0), 0);
  return `${minutes.toFixed(1)} min`;
}

/** The range searched: "orders 4f1c2e7a9b..9a8b7c6d5e". */
export function describeRange(bisection: Pick<BisectionRead, "repo" | "good" | "bad">): string {
  return `${bisection.repo} ${shortCommit(bisection.good)}..${shortCommit(bisection.bad)}`;
}

/** A commit a found bisection named, as its result gives it. */
export interface Culprit {
  sha: string;
  subject: string;
  author: string;
  change: number | null;
  interval: number[] | null;
  share: number | null;
  /** The run that measured it beside its parent. */
  run_id: number | null;
}

/**
 * The commits a found bisection named, in the order found: its result's `culprits` (each
 * with its share of the whole change), or `[culprit]` from a result without that list;
 * entries without a sha are skipped. None for a result that names no commit.
 */
export function culpritsOf(result: BisectionRead["result"]): Culprit[] {
  const culprits: unknown = result?.culprits;
  const entries: unknown[] = Array.isArray(culprits) ? culprits : [result?.culprit];
  return entries.flatMap((entry) => {
    const culprit = readCulprit(entry);
    return culprit === null ? [] : [culprit];
  });
}

/** The sum of the culprits' shares of the whole change; null for none, or a share unknown. */
export function sharesSum(culprits: readonly Pick<Culprit, "share">[]): number | null {
  if (culprits.length === 0) return null;
  let sum = 0;
  for (const { share } of culprits) {
    if (share === null || !Number.isFinite(share)) return null;
    sum += share;
  }
  return sum;
}

function readCulprit(culprit: unknown): Culprit | null {
  if (!isRecord(culprit) || typeof culprit.sha !== "string") return null;
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  const number = (value: unknown) => (typeof value === "number" ? value : null);
  const interval = culprit.interval;
  return {
    sha: culprit.sha,
    subject: text(culprit.subject),
    author: text(culprit.author),
    change: number(culprit.change),
    interval:
      Array.isArray(interval) && interval.every((bound) => typeof bound === "number")
        ? (interval as number[])
        : null,
    share: number(culprit.share),
    run_id: number(culprit.run_id),
  };
}

/** The commits a narrowed bisection left (`{"range": [sha...]}`), or null. */
export function rangeOf(result: BisectionRead["result"]): string[] | null {
  const range = result?.range;
  if (!Array.isArray(range)) return null;
  return range.filter((sha): sha is string => typeof sha === "string");
}

/** The form that starts a bisection, as typed. */
export interface BisectionText {
  repo: string;
  good: string;
  bad: string;
  suite: string;
  scenario: string;
  metric: string;
  /** Series labels: "client=go, pool=8". */
  series: string;
  /** The suite's params as a JSON object. */
  params: string;
  maxMinutes: string;
}

export type BisectionField = keyof BisectionText;
type FieldErrors = Partial<Record<BisectionField, string>>;

/** Trials a side in each step's first stage: the API's default, a try job's. */
export const REPETITIONS = 10;

/** The API's cap of lab time over a bisection's steps. */
export const MAX_MINUTES = 2880;

/** The request, or an error per field. */
export function checkBisection(
  text: BisectionText,
): { body: BisectionCreate } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  for (const name of ["repo", "good", "bad", "suite", "scenario", "metric"] as const) {
    if (text[name].trim() === "") errors[name] = "required";
  }
  const series = parseLabels(text.series);
  if ("error" in series) errors.series = series.error;
  const params = parseParams(text.params);
  if ("error" in params) errors.params = params.error;
  const maxMinutes = parseCap(text.maxMinutes);
  if ("error" in maxMinutes) errors.maxMinutes = maxMinutes.error;
  const failed = Object.keys(errors).length > 0;
  if (failed || "error" in series || "error" in params || "error" in maxMinutes) return { errors };
  return {
    body: {
      repo: text.repo,
      good: text.good.trim(),
      bad: text.bad.trim(),
      suite: text.suite.trim(),
      scenario: text.scenario.trim(),
      metric: text.metric.trim(),
      series: series.labels,
      params: params.params,
      host_tags: [],
      repetitions: REPETITIONS,
      ...(maxMinutes.value === undefined ? {} : { max_minutes: maxMinutes.value }),
    },
  };
}

/** "client=go, pool=8" -> {client: "go", pool: "8"}; blank: {} (any series of the run). */
export function parseLabels(text: string): { labels: Record<string, string> } | { error: string } {
  const labels: Record<string, string> = {};
  for (const part of text.split(",")) {
    if (part.trim() === "") continue;
    const at = part.indexOf("=");
    const key = at < 0 ? "" : part.slice(0, at).trim();
    const value = at < 0 ? "" : part.slice(at + 1).trim();
    if (key === "" || value === "") return { error: `"${part.trim()}" is not key=value` };
    if (key in labels) return { error: `${key} is given twice` };
    labels[key] = value;
  }
  return { labels };
}

/** The suite's params as a JSON object; blank: none. */
export function parseParams(text: string): { params: Record<string, unknown> } | { error: string } {
  if (text.trim() === "") return { params: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: 'not JSON: an object, e.g. {"server": "repo"}' };
  }
  return isRecord(value) ? { params: value } : { error: 'a JSON object, e.g. {"server": "repo"}' };
}

/** The cap of lab time in whole minutes; blank: none. */
export function parseCap(text: string): { value: number | undefined } | { error: string } {
  if (text.trim() === "") return { value: undefined };
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < 1 || value > MAX_MINUTES) {
    return { error: `whole minutes from 1 to ${MAX_MINUTES.toLocaleString("en-US")}` };
  }
  return { value };
}

/** The API's refusal on the fields it names ($.good, $.params.server, $.max_minutes); the
 * rest for the form. */
export function bisectionProblems(body: unknown): { fields: FieldErrors; other: string[] } {
  const { fields: found, other } = problemsByField(body, "$.");
  const fields: FieldErrors = {};
  for (const [path, message] of Object.entries(found)) {
    const [name = "", ...rest] = path.split(".");
    const field = name === "max_minutes" ? "maxMinutes" : name;
    if (field in EMPTY_FORM) {
      fields[field as BisectionField] = rest.length > 0 ? `${rest.join(".")}: ${message}` : message;
    } else {
      other.push(`${path}: ${message}`);
    }
  }
  return { fields, other };
}

/**
 * What the form proposes for a suite: its lightest scenario (as the launch form does), and
 * params that measure the repository's code (http-order's `server: "repo"`); a suite no online
 * host offers: the API's default scenario, no params.
 */
export function suiteDefaults(
  suite: Pick<SuiteRead, "scenarios" | "lightest_scenario" | "params_schema"> | undefined,
): { scenario: string; params: string } {
  if (suite === undefined) return { scenario: "default", params: "" };
  const names = Object.keys(suite.scenarios);
  const scenario =
    suite.lightest_scenario ?? (names.includes("default") ? "default" : (names[0] ?? "default"));
  const repo = repoParamInputs(suite.params_schema);
  const entries = Object.entries(repo).map(
    ([name, value]) => `${JSON.stringify(name)}: ${JSON.stringify(value)}`,
  );
  return { scenario, params: entries.length > 0 ? `{${entries.join(", ")}}` : "" };
}

/** The form as it starts, before a repository, suite and params are chosen. */
export const EMPTY_FORM: BisectionText = {
  repo: "",
  good: "",
  bad: "",
  suite: "http-order",
  scenario: "",
  metric: "p99",
  series: "",
  params: "",
  maxMinutes: "",
};
