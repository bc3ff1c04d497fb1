/**
 * Repositories as the dashboard registers and launches them: the registration form checked
 * before it is sent (the API reads the repository and says the rest), its 422 problems put on
 * their fields, what a job of a repository's code names: one ref, or base and head; and where a
 * person reads one of its commits (its commit URL, `{sha}` in it).
 */

import type { JobCreate, JobRead, RepositoryCreate } from "../api/types";
import { shortCommit } from "./format";
import { isRecord, problemsByField } from "./params";

/** A repository's page. */
export function repositoryHref(name: string): string {
  return `/repositories/${encodeURIComponent(name)}`;
}

/** The registration form as typed. */
export interface RepositoryText {
  name: string;
  url: string;
  default_branch: string;
  secret: string;
  build_network: boolean;
  /** Its commit URL template; blank: none. */
  commit_url: string;
}

export type RepositoryField = "name" | "url" | "default_branch" | "secret" | "commit_url";

type FieldErrors = Partial<Record<RepositoryField, string>>;

const FIELDS: readonly string[] = ["name", "url", "default_branch", "secret", "commit_url"];
/** The API's rule for a repository's name. */
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** The transports git may be pointed at. */
const GIT_URL = /^(file|git|https?|ssh):\/\/\S+$/;

export const EMPTY_REPOSITORY: RepositoryText = {
  name: "",
  url: "",
  default_branch: "main",
  secret: "",
  build_network: false,
  commit_url: "",
};

/** Where a commit's sha goes in a repository's commit URL. */
export const SHA_PLACEHOLDER = "{sha}";

/** What a commit URL looks like, for a form's placeholder and hints. */
export const COMMIT_URL_EXAMPLE = "https://github.com/team/orders/commit/{sha}";

/**
 * Why a commit URL as typed would be refused (the API's rules: http(s), `{sha}` exactly once,
 * no credentials), or null when it may be sent; blank is none, and fine.
 */
export function commitUrlProblem(text: string): string | null {
  const template = text.trim();
  if (template === "") return null;
  if (!/^https?:\/\/[^/?#\s]+/.test(template) || /\s/.test(template)) {
    return "an http:// or https:// URL, without spaces";
  }
  if (template.split(SHA_PLACEHOLDER).length !== 2) {
    return `${SHA_PLACEHOLDER} exactly once, where the commit's sha goes`;
  }
  const host = template.replace(/^https?:\/\//, "").split(/[/?#]/)[0] ?? "";
  if (host.includes("@")) return "no credentials (user:password@) in it";
  return null;
}

/**
 * The link of a commit of a repository: its commit URL with the sha in place of `{sha}`; null
 * when the repository has none (or one the dashboard would not follow: not http(s)).
 */
export function commitHref(commitUrl: string | null | undefined, sha: string): string | null {
  if (!commitUrl || !/^https?:\/\//i.test(commitUrl) || !commitUrl.includes(SHA_PLACEHOLDER)) {
    return null;
  }
  if (sha.trim() === "") return null;
  return commitUrl.replace(SHA_PLACEHOLDER, encodeURIComponent(sha));
}

/** The request, or an error per field; a blank secret is none. */
export function checkRepository(
  text: RepositoryText,
): { body: RepositoryCreate } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  if (!NAME.test(text.name)) errors.name = "lower-case letters, digits, . _ - (up to 64)";
  if (!GIT_URL.test(text.url.trim())) {
    errors.url = "a file://, git://, http(s):// or ssh:// URL";
  }
  if (text.default_branch.trim() === "") errors.default_branch = "a branch";
  const commitUrl = commitUrlProblem(text.commit_url);
  if (commitUrl !== null) errors.commit_url = commitUrl;
  if (Object.keys(errors).length > 0) return { errors };
  return {
    body: {
      name: text.name,
      url: text.url.trim(),
      default_branch: text.default_branch.trim(),
      build_network: text.build_network,
      ...(text.secret === "" ? {} : { secret: text.secret }),
      ...(text.commit_url.trim() === "" ? {} : { commit_url: text.commit_url.trim() }),
    },
  };
}

/** The API's refusal (`$.url`: "cannot read ...") on the field it names; the rest for the form. */
export function registrationProblems(body: unknown): { fields: FieldErrors; other: string[] } {
  const { fields: found, other } = problemsByField(body, "$.");
  const fields: FieldErrors = {};
  for (const [name, message] of Object.entries(found)) {
    if (FIELDS.includes(name)) fields[name as RepositoryField] = message;
    else other.push(`${name}: ${message}`);
  }
  return { fields, other };
}

/** A ref as typed names this commit: its sha, whole or abbreviated (at least 7 digits). */
export function namesCommit(ref: string, sha: string): boolean {
  const typed = ref.trim().toLowerCase();
  return /^[0-9a-f]{7,40}$/.test(typed) && sha.startsWith(typed);
}

/** What a job of a repository measures: its code at one ref, or head against base (a try job). */
export type RepoTarget =
  | { repo: string; ref: string }
  | { repo: string; compare: { base: string; head: string } };

/**
 * The part of a job's request that names the repository's code; a try job's, with its cap of
 * lab time over its stages when `maxMinutes` is given.
 */
export function targetFields(
  target: RepoTarget,
  maxMinutes?: number,
): Pick<JobCreate, "repo" | "ref" | "compare"> {
  if ("compare" in target) {
    return {
      repo: target.repo,
      compare: {
        base: target.compare.base.trim(),
        head: target.compare.head.trim(),
        ...(maxMinutes === undefined ? {} : { max_minutes: maxMinutes }),
      },
    };
  }
  return { repo: target.repo, ref: target.ref.trim() };
}

/** Why the target cannot be launched yet (a ref left blank), or null. */
export function targetProblem(target: RepoTarget): string | null {
  if ("compare" in target) {
    const { compare } = target;
    const missing = (["base", "head"] as const).filter((side) => compare[side].trim() === "");
    return missing.length > 0 ? `Pick or type the ${missing.join(" and ")} commit.` : null;
  }
  return target.ref.trim() === "" ? "Pick or type the commit to run." : null;
}

/**
 * A suite param that chooses which server the clients drive (http-order's `server`, an axis:
 * one of its values or a list of them) starts at the repository's when it offers one: launched
 * from a repository, the job measures its code.
 */
export function repoParamInputs(paramsSchema: unknown): Record<string, string> {
  const properties =
    isRecord(paramsSchema) && isRecord(paramsSchema.properties) ? paramsSchema.properties : {};
  return Object.fromEntries(
    Object.entries(properties)
      .filter(([, spec]) => isRecord(spec) && [spec, ...alternatives(spec)].some(offersRepo))
      .map(([name]) => [name, "repo"]),
  );
}

function alternatives(spec: Record<string, unknown>): unknown[] {
  return Array.isArray(spec.anyOf) ? spec.anyOf : [];
}

function offersRepo(spec: unknown): boolean {
  return isRecord(spec) && Array.isArray(spec.enum) && spec.enum.includes("repo");
}

/**
 * What a job of a repository measured, for its line in the jobs list: "orders @ main
 * (1a2b3c4d5e)", or a try job's "orders: head 1a2b3c4d5e against base v1.0 (9f8e7d6c5b)".
 */
export function describeRepoJob(
  job: Pick<JobRead, "repo" | "ref" | "commit" | "base">,
): string | null {
  if (job.repo === null) return null;
  const head = refAt(job.ref, job.commit);
  if (job.base) {
    return `${job.repo}: head ${head} against base ${refAt(job.base.ref, job.base.commit)}`;
  }
  return `${job.repo} @ ${head}`;
}

/** A ref with the commit it named: "main (1a2b3c4d5e)"; a sha by itself, shortened. */
export function refAt(ref: string | null | undefined, commit: string | null | undefined): string {
  if (!ref || ref === commit) return shortCommit(commit);
  return commit ? `${ref} (${shortCommit(commit)})` : ref;
}
