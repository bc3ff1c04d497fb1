/** What the load programs applied or were refused (each trial's `tuning`), summed over trials. */

/** A program reports each setting as "off" (not asked for), "applied[: detail]" or
 * "refused: <reason>" (the suites' contract); anything else is shown as it is. */
export type TuningState = "applied" | "refused" | "off" | "other";

export interface TuningEntry {
  setting: string;
  value: string;
  trials: number;
  state: TuningState;
  /** The value without its state word: "2,3" for "applied: 2,3". */
  detail: string;
}

const STATE = /^(applied|refused|off)\b:?\s*(.*)$/i;

export function parseTuning(value: string): { state: TuningState; detail: string } {
  const match = STATE.exec(value.trim());
  if (!match) return { state: "other", detail: value };
  return { state: match[1]!.toLowerCase() as TuningState, detail: match[2] ?? "" };
}

export function tuningSummary(
  series: readonly { trials: readonly { tuning: Record<string, string> | null }[] }[],
): TuningEntry[] {
  const entries = new Map<string, TuningEntry>();
  for (const item of series) {
    for (const trial of item.trials) {
      for (const [setting, value] of Object.entries(trial.tuning ?? {})) {
        const id = `${setting}\u0000${value}`;
        const entry = entries.get(id);
        if (entry) entry.trials += 1;
        else entries.set(id, { setting, value, trials: 1, ...parseTuning(value) });
      }
    }
  }
  return [...entries.values()].sort(
    (a, b) => a.setting.localeCompare(b.setting) || b.trials - a.trials,
  );
}
