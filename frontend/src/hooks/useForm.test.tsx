import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { TextField } from "../components/common/Field";
import { useForm } from "./useForm";

function Probe() {
  const form = useForm({ name: "orders", url: "" });
  return (
    <>
      <TextField label="Name" {...form.field("name")} />
      <TextField label="URL" {...form.field("url")} />
      <p>{form.other.length === 0 && form.done === null ? "no message" : "messages"}</p>
    </>
  );
}

describe("useForm", () => {
  it("binds each field to the form's text, nothing said before a send", () => {
    const html = renderToStaticMarkup(<Probe />);
    expect(html).toMatch(/<label[^>]*>Name<\/label><input [^>]*value="orders"/);
    expect(html).toMatch(/<label[^>]*>URL<\/label><input [^>]*value=""/);
    expect(html).not.toContain("aria-invalid");
    expect(html).toContain("<p>no message</p>");
  });
});
