import { describe, expect, it } from "vitest";

import { describeTest } from "./channels";

describe("describeTest", () => {
  it("gives the status and the time of a delivered test", () => {
    expect(
      describeTest({ channel_id: 1, ok: true, status_code: 200, elapsed_ms: 12.4, error: null }),
    ).toBe("Test message delivered (HTTP 200, 12 ms).");
  });

  it("gives an email channel's SMTP reply code", () => {
    expect(
      describeTest(
        { channel_id: 1, ok: true, status_code: 250, elapsed_ms: 40, error: null },
        "email",
      ),
    ).toBe("Test message delivered (SMTP 250, 40 ms).");
  });

  it("gives why a test failed", () => {
    expect(
      describeTest({
        channel_id: 1,
        ok: false,
        status_code: null,
        elapsed_ms: 3,
        error: "TargetRefused: 10.0.0.1 is private",
      }),
    ).toBe("Test failed: TargetRefused: 10.0.0.1 is private (3 ms).");
  });
});
