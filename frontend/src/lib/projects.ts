/** A project slug as the API takes it: lower-case letters, digits and dashes, 1 to 64. */
export function isProjectSlug(text: string): boolean {
  return /^[a-z0-9][a-z0-9-]{0,63}$/.test(text);
}
