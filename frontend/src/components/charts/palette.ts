/**
 * Series colours, in order; a series keeps its colour across a page's charts. They are CSS
 * variables (styles/base.css, with a dark set), so the charts follow the theme.
 */
export const PALETTE = [1, 2, 3, 4, 5, 6, 7].map((n) => `var(--series-${String(n)})`);

export function colour(index: number): string {
  return PALETTE[index % PALETTE.length]!;
}
