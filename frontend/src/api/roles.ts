/** What a role may do in the dashboard; the API enforces the same (403 otherwise). */

import type { Role } from "./types";

/** Members and admins change things; viewers only read. */
export function canWrite(role: Role): boolean {
  return role !== "viewer";
}

export function isAdmin(role: Role): boolean {
  return role === "admin";
}
