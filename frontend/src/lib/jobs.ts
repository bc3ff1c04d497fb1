/** Job states and the launch form's host tags. */

import type { JobEstimate, JobStatus } from "../api/types";

/** The API's slug rule for host tags. */
const TAG = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** "hft-tuned, x86" -> ["hft-tuned", "x86"], or the first tag that is not a slug. */
export function parseTags(text: string): { tags: string[] } | { error: string } {
  const tags = [...new Set(text.split(/[\s,]+/).filter((tag) => tag !== ""))];
  const bad = tags.find((tag) => !TAG.test(tag));
  if (bad !== undefined)
    return { error: `"${bad}" is not a tag (lower-case letters, digits, . _ -)` };
  if (tags.length > 20) return { error: "at most 20 tags" };
  return { tags };
}

export interface LaunchText {
  tags: string;
  repetitions: string;
  timeout: string;
}

export interface LaunchFields {
  host_tags: string[];
  repetitions: number;
  /** Absent: the job's estimate sets it. */
  timeout_s?: number;
}

/** The launch form's own fields (the suite's params aside), checked, or an error per field. */
export function checkLaunch(
  text: LaunchText,
): { fields: LaunchFields } | { errors: Partial<Record<keyof LaunchText, string>> } {
  const tags = parseTags(text.tags);
  const repetitions = parseRepetitions(text.repetitions);
  const timeout = parseTimeout(text.timeout);
  if ("error" in tags || "error" in repetitions || "error" in timeout) {
    return {
      errors: {
        ...("error" in tags ? { tags: tags.error } : {}),
        ...("error" in repetitions ? { repetitions: repetitions.error } : {}),
        ...("error" in timeout ? { timeout: timeout.error } : {}),
      },
    };
  }
  return {
    fields: {
      host_tags: tags.tags,
      repetitions: repetitions.value,
      ...(timeout.value === undefined ? {} : { timeout_s: timeout.value }),
    },
  };
}

/** 0..100 -> "42%"; the API reports percent. */
export function formatProgress(progress: number): string {
  const clamped = Math.min(100, Math.max(0, Number.isFinite(progress) ? progress : 0));
  return `${String(Math.floor(clamped))}%`;
}

/**
 * The lab's default repetitions (the API's default for a job, checked against the OpenAPI
 * document by a test): five trials let a comparison test a change.
 */
export const LAB_REPETITIONS = 5;

/**
 * A try job's default repetitions (the API's, when none are given): ten trials of each commit
 * in its first stage, interleaved, so that a change of a few percent can be told from noise.
 */
export const TRY_REPETITIONS = 10;

/** Whole repetitions 1..100 (the API's bounds). */
export function parseRepetitions(text: string): { value: number } | { error: string } {
  return wholeNumber(text, [1, 100], "a whole number from 1 to 100");
}

/** Timeout in seconds: 10 s .. 6 h (the API's bounds); blank: from the job's estimate. */
export function parseTimeout(text: string): { value: number | undefined } | { error: string } {
  if (text.trim() === "") return { value: undefined };
  return wholeNumber(text, [10, 21_600], "whole seconds from 10 to 21,600");
}

/**
 * A try job's cap of lab time over its stages, in whole minutes 1..360 (the API's bounds);
 * blank: none, the job stops at a decision or at its last look.
 */
export function parseMaxMinutes(text: string): { value: number | undefined } | { error: string } {
  if (text.trim() === "") return { value: undefined };
  return wholeNumber(text, [1, 360], "whole minutes from 1 to 360");
}

/** A whole number typed within the API's bounds, else `error`. */
function wholeNumber(
  text: string,
  [low, high]: [number, number],
  error: string,
): { value: number } | { error: string } {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < low || value > high) return { error };
  return { value };
}

/** 42 -> "42 s", 750 -> "13 min", 9000 -> "2.5 h": a job's estimate or timeout. */
export function formatSeconds(seconds: number): string {
  if (seconds < 90) return `${String(Math.round(seconds))} s`;
  if (seconds < 7200) return `${String(Math.round(seconds / 60))} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** "About 41 min: 8 series × 5 trials; timeout 72 min". */
export function describeEstimate(estimate: JobEstimate): string {
  const about =
    estimate.estimate_s === null
      ? "No estimate from the suite"
      : `About ${formatSeconds(estimate.estimate_s)}`;
  const work = `${String(estimate.series)} series × ${String(estimate.trials)} trials`;
  return `${about}: ${work}; timeout ${formatSeconds(estimate.timeout_s)}`;
}

export const JOB_STATUSES: readonly JobStatus[] = [
  "queued",
  "dispatched",
  "running",
  "succeeded",
  "failed",
  "cancelled",
  "timed_out",
];

export function statusTone(status: JobStatus): "good" | "bad" | "neutral" | "unknown" | "active" {
  switch (status) {
    case "succeeded":
      return "good";
    case "failed":
    case "timed_out":
      return "bad";
    case "cancelled":
      return "neutral";
    case "running":
      return "active";
    default:
      return "unknown";
  }
}
