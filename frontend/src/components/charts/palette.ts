/** Series colours, in order; a series keeps its colour across a page's charts. */
export const PALETTE = [
  "#2563eb",
  "#dc2626",
  "#16a34a",
  "#9333ea",
  "#ea580c",
  "#0891b2",
  "#ca8a04",
];

export function colour(index: number): string {
  return PALETTE[index % PALETTE.length]!;
}
