import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import type { RunsHome } from "../../lib/runHome";
import { MissingRuns } from "./MissingRuns";

function render(home: RunsHome | null, runIds = [103]): string {
  return renderToStaticMarkup(
    <MissingRuns home={home} runIds={runIds}>
      <p>the page</p>
    </MissingRuns>,
  );
}

describe("MissingRuns", () => {
  it("shows the page while nothing is missing or nothing was learned", () => {
    expect(render(null)).toBe("<p>the page</p>");
    expect(render({ kind: "unknown" })).toBe("<p>the page</p>");
  });

  it("says it is looking, then opening the runs' project", () => {
    expect(render({ kind: "looking" }, [7, 8])).toContain(
      "Looking for runs #7 and #8 in your projects…",
    );
    expect(render({ kind: "switch", project: "bravo" })).toContain(
      "Opening run #103 in project bravo…",
    );
  });

  it("says a run is in no project the user belongs to, in the missing state's style", () => {
    const html = render({ kind: "nowhere", runIds: [103] });
    expect(html).toContain('class="status status-empty"');
    expect(html).toContain("Run #103 is not in this project, nor in any project you belong to.");
    expect(html).not.toContain("the page");
  });
});
