import { describe, expect, it } from "vitest";

import { describeDetail } from "./errors";

describe("describeDetail", () => {
  it("returns a string detail", () => {
    expect(describeDetail({ detail: "wrong email or password" })).toBe("wrong email or password");
  });

  it("joins validation problems with their paths", () => {
    expect(
      describeDetail({
        detail: [
          { path: "$.series[0].trials", message: "must not be empty" },
          { path: "", message: "bad body" },
        ],
      }),
    ).toBe("$.series[0].trials: must not be empty; bad body");
  });

  it("returns null for bodies without a usable detail", () => {
    expect(describeDetail(undefined)).toBeNull();
    expect(describeDetail("oops")).toBeNull();
    expect(describeDetail({ detail: 42 })).toBeNull();
    expect(describeDetail({ detail: [{ nothing: 1 }] })).toBeNull();
  });
});
