import { describe, expect, it } from "vitest";

import {
  checkRepository,
  describeRepoJob,
  EMPTY_REPOSITORY,
  namesCommit,
  refAt,
  registrationProblems,
  repoParamInputs,
  repositoryHref,
  targetFields,
  targetProblem,
} from "./repos";

const SHA = "1a2b3c4d5e6f708192a3b4c5d6e7f80912a3b4c5";
const BASE_SHA = "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432";

describe("checkRepository", () => {
  it("sends what was typed, a blank secret as none", () => {
    expect(
      checkRepository({
        ...EMPTY_REPOSITORY,
        name: "orders",
        url: " file:///srv/git/orders ",
        build_network: true,
      }),
    ).toEqual({
      body: {
        name: "orders",
        url: "file:///srv/git/orders",
        default_branch: "main",
        build_network: true,
      },
    });
    const withSecret = checkRepository({
      ...EMPTY_REPOSITORY,
      name: "quotes",
      url: "https://git.example.com/quotes.git",
      secret: "ci-bot:token",
    });
    expect(withSecret).toEqual({
      body: {
        name: "quotes",
        url: "https://git.example.com/quotes.git",
        default_branch: "main",
        build_network: false,
        secret: "ci-bot:token",
      },
    });
  });

  it("says which field is wrong before anything is sent", () => {
    const checked = checkRepository({
      ...EMPTY_REPOSITORY,
      name: "Orders Repo",
      url: "git@example.com:team/orders.git",
      default_branch: " ",
    });
    expect("errors" in checked && Object.keys(checked.errors).sort()).toEqual([
      "default_branch",
      "name",
      "url",
    ]);
  });
});

describe("registrationProblems", () => {
  it("puts the lab's reasons on the fields they name, the rest on the form", () => {
    expect(
      registrationProblems({
        detail: [
          { path: "$.url", message: "cannot read file:///gone: not a git repository" },
          { path: "$.default_branch", message: "file:///srv/orders has no branch 'trunk'" },
          { path: "$.unknown", message: "extra" },
          { path: "$", message: "refused" },
        ],
      }),
    ).toEqual({
      fields: {
        url: "cannot read file:///gone: not a git repository",
        default_branch: "file:///srv/orders has no branch 'trunk'",
      },
      other: ["refused", "unknown: extra"],
    });
    const conflict = "a repository 'orders' exists in this project";
    expect(registrationProblems({ detail: conflict })).toEqual({ fields: {}, other: [conflict] });
  });
});

describe("repository jobs", () => {
  it("names one ref, or a try job's base and head", () => {
    expect(targetFields({ repo: "orders", ref: " main " })).toEqual({
      repo: "orders",
      ref: "main",
    });
    expect(targetFields({ repo: "orders", compare: { base: "v1.0", head: SHA } })).toEqual({
      repo: "orders",
      compare: { base: "v1.0", head: SHA },
    });
    expect(targetFields({ repo: "orders", compare: { base: "v1.0", head: SHA } }, 30)).toEqual({
      repo: "orders",
      compare: { base: "v1.0", head: SHA, max_minutes: 30 },
    });
  });

  it("waits for every commit to be picked; base = head is an A/A test", () => {
    expect(targetProblem({ repo: "orders", compare: { base: "", head: " " } })).toBe(
      "Pick or type the base and head commit.",
    );
    expect(targetProblem({ repo: "orders", ref: "" })).toBe("Pick or type the commit to run.");
    expect(targetProblem({ repo: "orders", compare: { base: "main", head: "main" } })).toBeNull();
  });

  it("sets a param choosing the server to the repository's", () => {
    // http-order's `server`, an axis (GET /suites): one value or a list of them.
    const server = { enum: ["lab", "repo"], type: "string" };
    const schema = {
      properties: {
        server: {
          default: "lab",
          anyOf: [server, { type: "array", items: server, minItems: 1 }],
        },
        loads: { type: "string", default: "python" },
        format: { enum: ["go-bench", "jmh"] },
      },
    };
    expect(repoParamInputs(schema)).toEqual({ server: "repo" });
    expect(repoParamInputs({ properties: { side: { enum: ["repo", "lab"] } } })).toEqual({
      side: "repo",
    });
    expect(repoParamInputs({})).toEqual({});
  });

  it("tells a typed ref that names a listed commit", () => {
    expect(namesCommit(SHA, SHA)).toBe(true);
    expect(namesCommit(" 1A2B3C4 ", SHA)).toBe(true);
    expect(namesCommit("1a2b3c", SHA)).toBe(false);
    expect(namesCommit("main", SHA)).toBe(false);
  });

  it("describes what a job of a repository measured", () => {
    expect(describeRepoJob({ repo: null, ref: null, commit: null, base: null })).toBeNull();
    expect(describeRepoJob({ repo: "orders", ref: "main", commit: SHA, base: null })).toBe(
      "orders @ main (1a2b3c4d5e)",
    );
    expect(
      describeRepoJob({
        repo: "orders",
        ref: SHA,
        commit: SHA,
        base: { ref: "v1.0", commit: BASE_SHA },
      }),
    ).toBe("orders: head 1a2b3c4d5e against base v1.0 (9f8e7d6c5b)");
  });

  it("names a ref with the commit it named, a sha by itself", () => {
    expect(refAt("main", SHA)).toBe("main (1a2b3c4d5e)");
    expect(refAt(SHA, SHA)).toBe("1a2b3c4d5e");
    expect(refAt(undefined, SHA)).toBe("1a2b3c4d5e");
    expect(refAt(undefined, undefined)).toBe("—");
  });

  it("links a repository's page", () => {
    expect(repositoryHref("orders.v2")).toBe("/repositories/orders.v2");
  });
});
