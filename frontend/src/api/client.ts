import createClient from "openapi-fetch";

import { describeDetail } from "./errors";
import type { paths } from "./schema";

/**
 * The one HTTP client: same origin, session cookie included. Every request says it is JSON:
 * the API refuses cookie-authenticated writes that do not (its CSRF defence).
 */
export const api = createClient<paths>({
  baseUrl: "",
  credentials: "include",
  headers: { "Content-Type": "application/json" },
});

/** A non-2xx answer of the API, with its status and the body's `detail`. */
export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;

  constructor(status: number, body: unknown) {
    super(describeDetail(body) ?? `The server answered HTTP ${String(status)}.`);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
  }
}

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Resolves to the response body, or throws an ApiError for a non-2xx status. */
export async function unwrap<T>(request: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await request;
  if (!response.ok) throw new ApiError(response.status, error);
  return data as T;
}

export function isUnauthorized(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}

/** A message for people, whatever went wrong (API error, network, bug). */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return "Cannot reach the latlab server.";
  if (error instanceof Error) return error.message;
  return "Something went wrong.";
}

/** What a form shows of a refused request: the problems `split` puts on its fields, and the
 * rest; the error's own message when the body said nothing usable, or for a failure that is
 * not a refusal (a 5xx, the network). */
export function refusal<Fields>(
  error: unknown,
  split: (body: unknown) => { fields: Fields; other: string[] },
): { fields: Fields | Record<string, never>; other: string[] } {
  if (!(error instanceof ApiError) || error.status >= 500) {
    return { fields: {}, other: [errorMessage(error)] };
  }
  const problems = split(error.body);
  const said = problems.other.length > 0 || Object.keys(problems.fields as object).length > 0;
  return { fields: problems.fields, other: said ? problems.other : [error.message] };
}
