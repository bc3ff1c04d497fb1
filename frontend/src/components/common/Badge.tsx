import type { ReactNode } from "react";

import type { Tone } from "../../lib/compare";

export type BadgeTone = Tone | "info" | "active";

/** A short coloured label; the colour repeats what the text says, never replaces it. */
export function Badge({
  tone,
  children,
  title,
}: {
  tone: BadgeTone;
  children: ReactNode;
  title?: string;
}) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}
