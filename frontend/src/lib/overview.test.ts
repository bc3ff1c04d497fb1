import { describe, expect, it } from "vitest";

import { canWrite, isAdmin } from "../api/roles";
import { hostCounts, hostTags, verdictLabel } from "./overview";

describe("overview", () => {
  it("counts hosts up and down", () => {
    expect(hostCounts([{ online: true }, { online: false }, { online: true }])).toEqual({
      online: 2,
      offline: 1,
    });
  });

  it("lists the hosts' tags once each, in order", () => {
    const hosts = [{ tags: ["x86", "tuned"] }, { tags: [] }, { tags: ["arm", "tuned"] }];
    expect(hostTags(hosts)).toEqual(["arm", "tuned", "x86"]);
  });

  it("words verdicts", () => {
    expect(verdictLabel("fail")).toEqual({ text: "fail", tone: "bad" });
    expect(verdictLabel("no-baseline").text).toBe("no baseline");
    expect(verdictLabel("inconclusive")).toEqual({ text: "inconclusive", tone: "unknown" });
    expect(verdictLabel(null).text).toBe("not judged");
  });

  it("lets members and admins write, admins alone manage users", () => {
    expect(canWrite("viewer")).toBe(false);
    expect(canWrite("member")).toBe(true);
    expect(isAdmin("member")).toBe(false);
    expect(isAdmin("admin")).toBe(true);
  });
});
