import type { ReactNode } from "react";

import { runsHomeMessage, runsText, type RunsHome } from "../../lib/runHome";
import { EmptyState, Loading } from "./Status";

/**
 * A page's state while the runs its URL names are looked for in the user's other projects
 * (useOpenInRunProject): looking, opening their project, or saying they are in none the user
 * belongs to; otherwise (`home` null, or nothing learned) the page's own `children`.
 */
export function MissingRuns({
  home,
  runIds,
  children,
}: {
  home: RunsHome | null;
  runIds: number[];
  children: ReactNode;
}) {
  if (home === null) return <>{children}</>;
  const ids = [...new Set(runIds)];
  if (home.kind === "looking")
    return <Loading label={`Looking for ${runsText(ids).toLowerCase()} in your projects…`} />;
  if (home.kind === "switch") {
    const label = `Opening ${runsText(ids).toLowerCase()} in project ${home.project}…`;
    return <Loading label={label} />;
  }
  const message = runsHomeMessage(home);
  if (message === null) return <>{children}</>;
  return <EmptyState title={message.title}>{message.text}</EmptyState>;
}
