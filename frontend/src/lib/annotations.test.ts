import { describe, expect, it } from "vitest";

import type { AnnotationRead } from "../api/types";
import { annotationMarkers, annotationTitle, nearRunQuery, relativeToRun } from "./annotations";

const rows = [
  { index: 0, t: Date.parse("2026-12-01T10:00:00Z"), runId: 11 },
  { index: 1, t: Date.parse("2026-12-02T10:00:00Z"), runId: 12 },
  { index: 2, t: Date.parse("2026-12-03T10:00:00Z"), runId: 13 },
];

function annotation(id: number, at: string, extra: Partial<AnnotationRead> = {}): AnnotationRead {
  return {
    id,
    at,
    until: null,
    kind: "note",
    text: `note ${String(id)}`,
    link: null,
    suite: null,
    host: null,
    run_id: null,
    created_by: "admin@latlab.local",
    created_at: at,
    ...extra,
  };
}

describe("annotationMarkers", () => {
  it("places a note just before the first run at or after it, numbered in order", () => {
    const markers = annotationMarkers(
      rows,
      [annotation(2, "2026-12-02T12:00:00Z"), annotation(1, "2026-12-01T12:00:00Z")],
      new Set(),
    );
    expect(markers.map((m) => [m.number, m.x, m.annotation.id])).toEqual([
      [1, 0.5, 1],
      [2, 1.5, 2],
    ]);
  });

  it("places the lab's annotation before the run it was noticed at, whatever its moment", () => {
    const [marker] = annotationMarkers(
      rows,
      [annotation(3, "2026-12-03T10:00:00Z", { kind: "host", run_id: 12 })],
      new Set(),
    );
    expect(marker?.x).toBe(0.5);
  });

  it("puts a note newer than every run after the last, and leaves out one older than all", () => {
    const markers = annotationMarkers(
      rows,
      [annotation(4, "2026-12-05T00:00:00Z"), annotation(5, "2026-11-30T00:00:00Z")],
      new Set(),
    );
    expect(markers.map((m) => [m.annotation.id, m.x])).toEqual([[4, 2.5]]);
  });

  it("keeps only the annotations of the trend's hosts or of every host", () => {
    const markers = annotationMarkers(
      rows,
      [
        annotation(6, "2026-12-02T12:00:00Z", { host: "vm" }),
        annotation(7, "2026-12-02T12:00:00Z", { host: "other" }),
        annotation(8, "2026-12-02T12:00:00Z"),
      ],
      new Set(["vm"]),
    );
    expect(markers.map((m) => m.annotation.id)).toEqual([6, 8]);
  });

  it("draws a range as a band between runs, cut at the trend's left edge", () => {
    const markers = annotationMarkers(
      rows,
      [
        annotation(10, "2026-12-01T12:00:00Z", { until: "2026-12-02T12:00:00Z" }),
        annotation(11, "2026-11-20T00:00:00Z", { until: "2026-12-01T11:00:00Z" }),
        annotation(12, "2026-11-20T00:00:00Z", { until: "2026-11-21T00:00:00Z" }),
      ],
      new Set(),
    );
    expect(markers.map((m) => [m.annotation.id, m.x, m.x2])).toEqual([
      [11, -0.5, 0.5],
      [10, 0.5, 1.5],
    ]);
    expect(markers[1] && annotationTitle(markers[1])).toBe(
      "A2 · 2026-12-01 12:00:00 UTC to 2026-12-02 12:00:00 UTC · note 10",
    );
  });

  it("draws nothing without rows", () => {
    expect(annotationMarkers([], [annotation(9, "2026-12-02T12:00:00Z")], new Set())).toEqual([]);
  });
});

describe("annotationTitle", () => {
  it("reads its number, moment and text", () => {
    const [marker] = annotationMarkers(rows, [annotation(1, "2026-12-01T12:00:00Z")], new Set());
    expect(marker && annotationTitle(marker)).toBe("A1 · 2026-12-01 12:00:00 UTC · note 1");
  });
});

describe("nearRunQuery", () => {
  it("asks for the run's suite and host, a week before it to a day after", () => {
    const run = { suite: "echo", host_name: "lab-07", started_at: "2026-11-22T10:00:00Z" };
    expect(nearRunQuery(run)).toEqual({
      suite: "echo",
      host: "lab-07",
      since: "2026-11-15T10:00:00.000Z",
      until: "2026-11-23T10:00:00.000Z",
      limit: 20,
    });
    expect(nearRunQuery({ ...run, host_name: null })).not.toHaveProperty("host");
  });
});

describe("relativeToRun", () => {
  it("says how long before or after the run, in the unit that reads best", () => {
    expect(relativeToRun(0)).toBe("at the run");
    expect(relativeToRun(-20 * 60_000)).toBe("20 min before the run");
    expect(relativeToRun(3 * 3_600_000)).toBe("3 h after the run");
    expect(relativeToRun(-5 * 86_400_000)).toBe("5 days before the run");
  });
});
