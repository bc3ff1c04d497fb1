import { describe, expect, it } from "vitest";

import {
  checkRepository,
  commitHref,
  commitUrlProblem,
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

  it("sends a commit URL when one is typed, and checks it first", () => {
    const text = { ...EMPTY_REPOSITORY, name: "orders", url: "https://github.com/team/orders" };
    const checked = checkRepository({ ...text, commit_url: ` ${GITHUB} ` });
    expect("body" in checked && checked.body.commit_url).toBe(GITHUB);
    expect(checkRepository({ ...text, commit_url: "  " })).toEqual(checkRepository(text));
    const refused = checkRepository({ ...text, commit_url: "https://github.com/team/orders" });
    expect("errors" in refused && Object.keys(refused.errors)).toEqual(["commit_url"]);
  });
});

const GITHUB = "https://github.com/team/orders/commit/{sha}";

describe("a repository's commit URL", () => {
  it("links a commit: its sha in place of {sha}", () => {
    expect(commitHref(GITHUB, SHA)).toBe(`https://github.com/team/orders/commit/${SHA}`);
    expect(commitHref("http://git.lab:8080/orders/-/commit/{sha}?view=parallel", BASE_SHA)).toBe(
      `http://git.lab:8080/orders/-/commit/${BASE_SHA}?view=parallel`,
    );
  });

  it("links nothing without one, or with one the dashboard would not follow", () => {
    expect(commitHref(null, SHA)).toBeNull();
    expect(commitHref(undefined, SHA)).toBeNull();
    expect(commitHref("", SHA)).toBeNull();
    expect(commitHref("javascript:alert('{sha}')", SHA)).toBeNull();
    expect(commitHref("https://github.com/team/orders/commits", SHA)).toBeNull();
    expect(commitHref(GITHUB, "")).toBeNull();
  });

  it("is checked as the API checks it; blank is none", () => {
    expect(commitUrlProblem("")).toBeNull();
    expect(commitUrlProblem(` ${GITHUB} `)).toBeNull();
    expect(commitUrlProblem("ftp://example.com/{sha}")).toMatch(/http/);
    expect(commitUrlProblem("https://github.com/team orders/{sha}")).toMatch(/spaces/);
    expect(commitUrlProblem("https://github.com/team/orders/commit/")).toMatch(/exactly once/);
    expect(commitUrlProblem("https://github.com/{sha}/compare/{sha}")).toMatch(/exactly once/);
    expect(commitUrlProblem("https://bot:tok@github.com/orders/commit/{sha}")).toMatch(
      /credentials/,
    );
  });

  it("has its refusals put on its field", () => {
    expect(
      registrationProblems({
        detail: [{ path: "$.commit_url", message: "a commit URL contains {sha} exactly once" }],
      }),
    ).toEqual({ fields: { commit_url: "a commit URL contains {sha} exactly once" }, other: [] });
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
