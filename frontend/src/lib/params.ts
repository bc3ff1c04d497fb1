/**
 * A suite's parameter schema (JSON Schema from GET /suites) as form fields, and the client-side
 * check of what was typed before a job is submitted. The server checks again and its answer
 * wins; this only saves a round trip and says which field is wrong.
 */

/** `list`: an argument list (an array of strings), typed as JSON: ["go", "test", "-bench", "."]. */
export type ParamKind = "integer" | "number" | "string" | "boolean" | "enum" | "list";

export interface ParamField {
  name: string;
  kind: ParamKind;
  description: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  options?: string[];
  default?: unknown;
}

/** What the form holds: text as typed ("" = the default), booleans as checked. */
export type ParamInputs = Record<string, string | boolean>;

export interface ParamCheck {
  /** Only the parameters that were set and differ from the effective default. */
  params: Record<string, unknown>;
  errors: Record<string, string>;
}

/** The fields of an object schema, in the schema's order; unknown shapes become text fields. */
export function paramFields(schema: unknown): ParamField[] {
  const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
  return Object.entries(properties).map(([name, raw]) => {
    const spec = isRecord(raw) ? raw : {};
    const field: ParamField = {
      name,
      kind: kindOf(spec),
      description: typeof spec.description === "string" ? spec.description : "",
    };
    for (const key of [
      "minimum",
      "maximum",
      "exclusiveMinimum",
      "exclusiveMaximum",
      "minLength",
      "maxLength",
    ] as const) {
      const value = spec[key];
      if (typeof value === "number") field[key] = value;
    }
    if (typeof spec.pattern === "string") field.pattern = spec.pattern;
    if (Array.isArray(spec.enum)) field.options = spec.enum.map(String);
    if ("default" in spec) field.default = spec.default;
    return field;
  });
}

/** The schema's defaults overlaid by the scenario's own params: what a blank field means. */
export function effectiveDefaults(
  fields: ParamField[],
  scenarioParams: Record<string, unknown> = {},
): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const field of fields) {
    if (field.name in scenarioParams) defaults[field.name] = scenarioParams[field.name];
    else if (field.default !== undefined) defaults[field.name] = field.default;
  }
  return defaults;
}

/** The form's starting state for a scenario: blank texts, checkboxes at their default. */
export function initialInputs(
  fields: ParamField[],
  defaults: Record<string, unknown>,
): ParamInputs {
  const inputs: ParamInputs = {};
  for (const field of fields)
    inputs[field.name] = field.kind === "boolean" ? defaults[field.name] === true : "";
  return inputs;
}

const KIND_WORDS: Partial<Record<ParamKind, string>> = {
  enum: "one of the list",
  list: 'a JSON list of strings, e.g. ["make", "bench"]',
};

/** A field's rule in words, for its hint: "integer, 1 – 10,000,000". */
export function describeConstraints(field: ParamField): string {
  const parts: string[] = [KIND_WORDS[field.kind] ?? field.kind];
  const low = field.minimum ?? field.exclusiveMinimum;
  const high = field.maximum ?? field.exclusiveMaximum;
  if (low !== undefined && high !== undefined) parts.push(`${grouped(low)} – ${grouped(high)}`);
  else if (low !== undefined) parts.push(`≥ ${grouped(low)}`);
  else if (high !== undefined) parts.push(`≤ ${grouped(high)}`);
  if (field.pattern) parts.push(`pattern ${field.pattern}`);
  return parts.join(", ");
}

/** Parses and checks every field; returns the params to send or an error per field. */
export function checkParams(
  fields: ParamField[],
  inputs: ParamInputs,
  defaults: Record<string, unknown>,
): ParamCheck {
  const params: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const input = inputs[field.name];
    if (input === undefined || input === "") continue;
    const parsed = parseParam(field, input);
    if ("error" in parsed) errors[field.name] = parsed.error;
    else if (!sameValue(parsed.value, defaults[field.name])) params[field.name] = parsed.value;
  }
  return { params, errors };
}

export function parseParam(
  field: ParamField,
  input: string | boolean,
): { value: unknown } | { error: string } {
  if (field.kind === "boolean") {
    return typeof input === "boolean" ? { value: input } : { error: "must be on or off" };
  }
  const text = String(input).trim();
  switch (field.kind) {
    case "integer": {
      if (!/^[-+]?\d+$/.test(text)) return { error: "must be a whole number" };
      return checkRange(field, Number(text));
    }
    case "number": {
      const value = Number(text);
      if (text === "" || !Number.isFinite(value)) return { error: "must be a number" };
      return checkRange(field, value);
    }
    case "enum":
      return field.options?.includes(text) ? { value: text } : { error: "pick one of the list" };
    case "string":
      return checkText(field, String(input));
    case "list":
      return parseList(text);
  }
}

/** What a blank field shows greyed: "default 20000", a list's default as JSON. */
export function defaultPlaceholder(field: ParamField, value: unknown): string {
  if (value === undefined || value === "") return "";
  return `default ${field.kind === "list" ? JSON.stringify(value) : String(value)}`;
}

function parseList(text: string): { value: string[] } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    return { error: 'must be a JSON list of strings, e.g. ["make", "bench"]' };
  }
  return { value };
}

function sameValue(value: unknown, other: unknown): boolean {
  return Array.isArray(value) ? JSON.stringify(value) === JSON.stringify(other) : value === other;
}

/**
 * Problems of a 4xx answer ({path: "$.params.count", message}) sorted to their fields: those
 * under `prefix` (a job's params by default; "$." for a body's own fields).
 */
export function problemsByField(
  body: unknown,
  prefix = "$.params.",
): {
  fields: Record<string, string>;
  other: string[];
} {
  const under = new RegExp(`^${prefix.replace(/[.$]/g, "\\$&")}([A-Za-z_][A-Za-z0-9_.-]*)$`);
  const fields: Record<string, string> = {};
  const other: string[] = [];
  const detail = isRecord(body) ? body.detail : undefined;
  if (typeof detail === "string") other.push(detail);
  if (Array.isArray(detail)) {
    for (const problem of detail) {
      if (!isRecord(problem)) continue;
      const message =
        typeof problem.message === "string"
          ? problem.message
          : typeof problem.msg === "string"
            ? problem.msg
            : null;
      if (message === null) continue;
      const path = typeof problem.path === "string" ? problem.path : "";
      const match = under.exec(path);
      if (match) fields[match[1]!] = message;
      else other.push(path && path !== "$" ? `${path}: ${message}` : message);
    }
  }
  return { fields, other };
}

function checkRange(field: ParamField, value: number): { value: number } | { error: string } {
  if (field.minimum !== undefined && value < field.minimum)
    return { error: `must be at least ${grouped(field.minimum)}` };
  if (field.maximum !== undefined && value > field.maximum)
    return { error: `must be at most ${grouped(field.maximum)}` };
  if (field.exclusiveMinimum !== undefined && value <= field.exclusiveMinimum) {
    return { error: `must be more than ${grouped(field.exclusiveMinimum)}` };
  }
  if (field.exclusiveMaximum !== undefined && value >= field.exclusiveMaximum) {
    return { error: `must be less than ${grouped(field.exclusiveMaximum)}` };
  }
  return { value };
}

function checkText(field: ParamField, text: string): { value: string } | { error: string } {
  if (field.minLength !== undefined && text.length < field.minLength) {
    return { error: `must have at least ${String(field.minLength)} characters` };
  }
  if (field.maxLength !== undefined && text.length > field.maxLength) {
    return { error: `must have at most ${String(field.maxLength)} characters` };
  }
  if (field.pattern !== undefined) {
    let pattern: RegExp;
    try {
      pattern = new RegExp(field.pattern, "u");
    } catch {
      return { value: text }; // A pattern this browser cannot read is left to the server.
    }
    if (!pattern.test(text)) return { error: `must match ${field.pattern}` };
  }
  return { value: text };
}

function kindOf(spec: Record<string, unknown>): ParamKind {
  if (Array.isArray(spec.enum)) return "enum";
  const type = Array.isArray(spec.type) ? spec.type.find((t) => t !== "null") : spec.type;
  if (type === "integer" || type === "number" || type === "boolean") return type;
  if (type === "array") return "list";
  return "string";
}

function grouped(value: number): string {
  return value.toLocaleString("en-US");
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
