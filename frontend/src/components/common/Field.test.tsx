import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { CheckField, SelectField, TextField } from "./Field";
import { LabelledSelect } from "./Select";

const ignore = () => undefined;

describe("form fields", () => {
  it("labels a text input, its hint and error wired to it", () => {
    const html = renderToStaticMarkup(
      <TextField label="Name" hint="Its queue" error="a name" value="x" onChange={ignore} />,
    );
    expect(html).toMatch(/<label for="([^"]+)">Name<\/label><input id="\1"/);
    expect(html).toMatch(/aria-describedby="[^"]+-hint [^"]+-error" aria-invalid="true"/);
    expect(html).toContain('value="x"');
    expect(html).toContain('<span id="');
  });

  it("is a textarea when given rows", () => {
    const html = renderToStaticMarkup(
      <TextField label="Params" rows={2} className="mono" value="{}" onChange={ignore} />,
    );
    expect(html).toMatch(/<textarea [^>]*class="mono"[^>]*rows="2"[^>]*>\{\}<\/textarea>/);
  });

  it("offers choices, a blank one first when asked", () => {
    const html = renderToStaticMarkup(
      <SelectField
        label="Test"
        value=""
        blank="as above"
        options={["t", { value: "z", text: "z-score" }]}
        onChange={ignore}
      />,
    );
    expect(html).toContain(
      '<option value="" selected="">as above</option><option value="t">t</option>' +
        '<option value="z">z-score</option>',
    );
    const select = <LabelledSelect label="Status" value="a" options={["a"]} onChange={ignore} />;
    expect(renderToStaticMarkup(select)).toBe(
      '<label>Status <select><option value="a" selected="">a</option></select></label>',
    );
  });

  it("puts a checkbox's hint under it", () => {
    expect(
      renderToStaticMarkup(
        <CheckField label="Profile" hint="One more trial" checked={false} onChange={ignore} />,
      ),
    ).toBe(
      '<div class="field field-check"><label><input type="checkbox"/> Profile</label>' +
        '<span class="field-hint">One more trial</span></div>',
    );
  });
});
