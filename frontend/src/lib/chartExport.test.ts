import { describe, expect, it } from "vitest";

import { standaloneSvg } from "./chartExport";

describe("standaloneSvg", () => {
  it("writes the page's computed paint into a copy that needs no stylesheet", () => {
    document.body.innerHTML = `
      <style>:root { --grid: #e5e7eb; } .grid line { stroke: var(--grid); }</style>
      <figure><svg class="recharts-surface" width="200" height="100">
        <g class="grid"><line x1="0" y1="0" x2="10" y2="10"></line></g>
        <text class="tick">p99</text>
      </svg></figure>`;
    const svg = document.querySelector("svg");
    if (!(svg instanceof SVGSVGElement)) throw new Error("no svg");
    const text = standaloneSvg(svg);
    const parsed = new DOMParser().parseFromString(text, "image/svg+xml");
    const root = parsed.documentElement;
    expect(root.getAttribute("xmlns")).toBe("http://www.w3.org/2000/svg");
    expect(root.querySelector("[class]")).toBeNull();
    expect(root.querySelector("text")?.textContent).toBe("p99");
    // A background first, so a viewer's own background does not show through.
    expect(root.firstElementChild?.tagName).toBe("rect");
    // The page's original is untouched.
    expect(svg.querySelector(".grid")).not.toBeNull();
  });
});
