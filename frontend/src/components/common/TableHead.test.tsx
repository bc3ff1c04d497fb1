import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { hidden, num, TableHead } from "./TableHead";

describe("TableHead", () => {
  it("heads each column, numbers' right-aligned, and leaves out those not shown", () => {
    const html = renderToStaticMarkup(
      <table>
        <TableHead columns={["Series", num("P99"), false, hidden("Actions")]} />
      </table>,
    );
    expect(html).toBe(
      "<table><thead><tr>" +
        '<th scope="col">Series</th>' +
        '<th scope="col" class="num">P99</th>' +
        '<th scope="col"><span class="visually-hidden">Actions</span></th>' +
        "</tr></thead></table>",
    );
  });
});
