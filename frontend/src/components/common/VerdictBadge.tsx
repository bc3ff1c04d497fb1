import type { RunVerdict, Verdict } from "../../api/types";
import { VERDICT_TONE } from "../../lib/compare";
import { verdictLabel } from "../../lib/overview";
import { Badge } from "./Badge";
import { Tooltip } from "./Tooltip";

/** A comparison verdict; its evidence (test, p-value, trials) on hover and focus. */
export function VerdictBadge({ verdict, evidence }: { verdict: Verdict; evidence?: string }) {
  const badge = <Badge tone={VERDICT_TONE[verdict]}>{verdict}</Badge>;
  if (!evidence) return badge;
  return <Tooltip tip={evidence}>{badge}</Tooltip>;
}

/** A run's CI verdict: pass, fail, no baseline, or not judged. */
export function RunVerdictBadge({ verdict }: { verdict: RunVerdict | null }) {
  const { text, tone } = verdictLabel(verdict);
  return <Badge tone={tone}>{text}</Badge>;
}
