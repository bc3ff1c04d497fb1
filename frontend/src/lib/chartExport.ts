/**
 * A chart as a file: its SVG, standalone (the page's CSS variables and text styles written
 * into it, so it draws the same outside the dashboard), or a PNG of it at twice its size.
 */

const PAINTED = ["fill", "stroke", "stroke-width", "stroke-dasharray", "opacity", "fill-opacity",
  "stroke-opacity", "font-size", "font-family", "font-weight"] as const;

/** A standalone copy of `svg`: every painted property as the page computed it. */
export function standaloneSvg(svg: SVGSVGElement): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  const originals = [svg, ...svg.querySelectorAll("*")];
  const copies = [copy, ...copy.querySelectorAll("*")];
  originals.forEach((original, index) => {
    const target = copies[index];
    if (!(target instanceof Element)) return;
    const computed = getComputedStyle(original);
    for (const property of PAINTED) {
      const value = computed.getPropertyValue(property);
      if (value) target.setAttribute(property, value);
    }
    target.removeAttribute("class");
    target.removeAttribute("style");
  });
  copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  const { width, height } = svg.getBoundingClientRect();
  if (width > 0) copy.setAttribute("width", String(Math.round(width)));
  if (height > 0) copy.setAttribute("height", String(Math.round(height)));
  const background = getComputedStyle(document.body).backgroundColor || "#ffffff";
  const rect = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  rect.setAttribute("width", "100%");
  rect.setAttribute("height", "100%");
  rect.setAttribute("fill", background);
  copy.insertBefore(rect, copy.firstChild);
  return new XMLSerializer().serializeToString(copy);
}

/** Downloads the chart in `figure` as `name`.svg or .png. */
export async function downloadChart(
  figure: Element,
  format: "svg" | "png",
  name: string,
): Promise<void> {
  // The chart's own drawing: the largest SVG in the figure (a legend's icons are SVGs too).
  const area = (box: SVGSVGElement) => {
    const { width, height } = box.getBoundingClientRect();
    return width * height;
  };
  const [svg] = [...figure.querySelectorAll("svg")].sort((a, b) => area(b) - area(a));
  if (svg === undefined) return;
  const text = standaloneSvg(svg);
  const blob =
    format === "svg" ? new Blob([text], { type: "image/svg+xml" }) : await toPng(text, svg);
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = `${name}.${format}`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

async function toPng(text: string, svg: SVGSVGElement): Promise<Blob> {
  const { width, height } = svg.getBoundingClientRect();
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
  await image.decode();
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(width * 2);
  canvas.height = Math.round(height * 2);
  const context = canvas.getContext("2d");
  if (context === null) throw new Error("no 2D canvas");
  context.scale(2, 2);
  context.drawImage(image, 0, 0, width, height);
  return new Promise((resolve, reject) =>
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("no PNG"))), "image/png"),
  );
}
