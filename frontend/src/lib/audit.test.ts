import { describe, expect, it } from "vitest";

import { describeChange } from "./audit";

describe("describeChange", () => {
  it("lists each changed field with its values before and after", () => {
    expect(describeChange({
      action: "update",
      before: { threshold: 2, archived_at: null },
      after: { threshold: 3, archived_at: "2026-11-22T12:00:00+00:00" },
    })).toBe("threshold: 2 → 3; archived_at: — → 2026-11-22T12:00:00+00:00");
  });

  it("names what was created or deleted", () => {
    expect(describeChange({ action: "create", after: { email: "ada@lab.test", role: "viewer" } }))
      .toBe("created ada@lab.test");
    expect(describeChange({ action: "delete", before: { name: "p99", suite: "http" } }))
      .toBe("deleted p99");
    expect(describeChange({ action: "create", after: { run_id: 4 } })).toBe("created");
  });

  it("says which message was refused and why", () => {
    expect(describeChange({
      action: "refused",
      after: { task: "ingest.job_outcome", job_id: 7,
               reason: "job 7's attempt 1 was not dispatched to host lab-b" },
    })).toBe("refused ingest.job_outcome: job 7's attempt 1 was not dispatched to host lab-b");
  });
});
