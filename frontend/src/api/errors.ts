/** Turning the API's `{"detail": ...}` error bodies into one readable sentence. */

interface Problem {
  path?: unknown;
  message?: unknown;
  msg?: unknown;
}

/** A string detail as is; a list of problems as "path: message; ..."; otherwise null. */
export function describeDetail(body: unknown): string | null {
  if (typeof body !== "object" || body === null || !("detail" in body)) return null;
  const detail = (body as { detail: unknown }).detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    const parts = detail.map(describeProblem).filter((part): part is string => part !== null);
    return parts.length > 0 ? parts.join("; ") : null;
  }
  return null;
}

function describeProblem(problem: unknown): string | null {
  if (typeof problem !== "object" || problem === null) return null;
  const { path, message, msg } = problem as Problem;
  const text = typeof message === "string" ? message : typeof msg === "string" ? msg : null;
  if (text === null) return null;
  return typeof path === "string" && path !== "" ? `${path}: ${text}` : text;
}
