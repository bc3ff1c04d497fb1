import { describe, expect, it } from "vitest";

import {
  checkParams,
  defaultPlaceholder,
  describeConstraints,
  effectiveDefaults,
  initialInputs,
  paramFields,
  problemsByField,
} from "./params";

// The shape GET /suites gives (echo and http-order, abridged).
const schema = {
  type: "object",
  additionalProperties: false,
  properties: {
    count: {
      type: "integer",
      minimum: 1,
      maximum: 10_000_000,
      default: 20_000,
      description: "Measured round trips",
    },
    timeout: { type: "number", minimum: 0.01, maximum: 60, default: 5 },
    loads: {
      type: "string",
      pattern: "^(python|c|rust)(,(python|c|rust))*$",
      default: "python,c,rust",
    },
    load: { enum: ["closed", "open"], default: "closed" },
    mlock: { type: "boolean", default: false },
  },
};

describe("paramFields", () => {
  it("reads kind, bounds, pattern, options and defaults in schema order", () => {
    const fields = paramFields(schema);
    expect(fields.map((f) => [f.name, f.kind])).toEqual([
      ["count", "integer"],
      ["timeout", "number"],
      ["loads", "string"],
      ["load", "enum"],
      ["mlock", "boolean"],
    ]);
    expect(fields[0]).toEqual({
      name: "count",
      kind: "integer",
      description: "Measured round trips",
      minimum: 1,
      maximum: 10_000_000,
      default: 20_000,
    });
    expect(fields[3]!.options).toEqual(["closed", "open"]);
  });

  it("has no fields for a schema without properties", () => {
    expect(paramFields({ type: "object" })).toEqual([]);
    expect(paramFields(null)).toEqual([]);
  });

  it("shows a blank field's default", () => {
    const [count, , loads] = paramFields(schema);
    expect(defaultPlaceholder(count!, 20_000)).toBe("default 20000");
    expect(defaultPlaceholder(loads!, ["python", "c"])).toBe("default python,c");
    expect(defaultPlaceholder(loads!, "")).toBe("");
  });

  it("says a field's rule in words", () => {
    const [count, , loads] = paramFields(schema);
    expect(describeConstraints(count!)).toBe("integer, 1 – 10,000,000");
    expect(describeConstraints(loads!)).toContain("pattern ^(python");
  });
});

describe("defaults", () => {
  it("lets the scenario's params override the schema's defaults", () => {
    const fields = paramFields(schema);
    const defaults = effectiveDefaults(fields, { count: 100 });
    expect(defaults).toEqual({
      count: 100,
      timeout: 5,
      loads: "python,c,rust",
      load: "closed",
      mlock: false,
    });
    expect(initialInputs(fields, defaults)).toEqual({
      count: "",
      timeout: "",
      loads: "",
      load: "",
      mlock: false,
    });
  });
});

describe("checkParams", () => {
  const fields = paramFields(schema);
  const defaults = effectiveDefaults(fields);

  it("sends only what was set and differs from the default", () => {
    const check = checkParams(
      fields,
      { count: "2000", timeout: "5", loads: "", load: "open", mlock: true },
      defaults,
    );
    expect(check).toEqual({ params: { count: 2000, load: "open", mlock: true }, errors: {} });
  });

  it("names each field's problem", () => {
    const check = checkParams(
      fields,
      { count: "2.5", timeout: "61", loads: "java", load: "sideways", mlock: false },
      defaults,
    );
    expect(check.params).toEqual({});
    expect(check.errors).toEqual({
      count: "must be a whole number",
      timeout: "must be at most 60",
      loads: "must match ^(python|c|rust)(,(python|c|rust))*$",
      load: "pick one of the list",
    });
    expect(checkParams(fields, { count: "0" }, defaults).errors).toEqual({
      count: "must be at least 1",
    });
    expect(checkParams(fields, { count: "10; rm -rf /" }, defaults).errors.count).toBe(
      "must be a whole number",
    );
    expect(checkParams(fields, { timeout: "abc" }, defaults).errors.timeout).toBe(
      "must be a number",
    );
  });
});

describe("argument lists", () => {
  // The harness suite's command (GET /suites): an argv list, never a shell line.
  const [command] = paramFields({
    properties: {
      command: {
        type: "array",
        items: { type: "string" },
        default: ["go", "test", "-bench", "."],
      },
    },
  });
  const defaults = { command: ["go", "test", "-bench", "."] };

  it("are typed as JSON lists of strings, the default shown as one", () => {
    expect(command!.kind).toBe("list");
    expect(describeConstraints(command!)).toBe('a JSON list of strings, e.g. ["make", "bench"]');
    expect(defaultPlaceholder(command!, defaults.command)).toBe(
      'default ["go","test","-bench","."]',
    );
    expect(
      checkParams([command!], { command: '["cargo", "bench", "--", "--quick"]' }, defaults),
    ).toEqual({ params: { command: ["cargo", "bench", "--", "--quick"] }, errors: {} });
  });

  it("send nothing when the list is the default, and refuse what is not a list", () => {
    expect(checkParams([command!], { command: '["go","test","-bench","."]' }, defaults)).toEqual({
      params: {},
      errors: {},
    });
    for (const typed of ["go test -bench .", '["go", 1]', '{"go": "test"}']) {
      expect(checkParams([command!], { command: typed }, defaults).errors.command).toBe(
        'must be a JSON list of strings, e.g. ["make", "bench"]',
      );
    }
  });
});

describe("problemsByField", () => {
  it("sorts the server's problems to fields by JSON path", () => {
    expect(
      problemsByField({
        detail: [
          { path: "$.params.count", message: "must be >= 1", type: "invalid" },
          { path: "$.params", message: "unknown parameter 'shell'" },
          { path: "$", message: "no host" },
        ],
      }),
    ).toEqual({
      fields: { count: "must be >= 1" },
      other: ["$.params: unknown parameter 'shell'", "no host"],
    });
    expect(problemsByField({ detail: "no online host has the tags hft-tuned" })).toEqual({
      fields: {},
      other: ["no online host has the tags hft-tuned"],
    });
  });

  it("sorts a body's own fields with another prefix", () => {
    expect(
      problemsByField(
        { detail: [{ path: "$.url", message: "cannot read it" }, { path: "$", message: "no" }] },
        "$.",
      ),
    ).toEqual({ fields: { url: "cannot read it" }, other: ["no"] });
  });
});
