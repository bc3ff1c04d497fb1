/** What the load programs applied or were refused (each trial's `tuning`), summed over trials. */

export interface TuningEntry {
  setting: string;
  value: string;
  trials: number;
  refused: boolean;
}

const REFUSED = /refused|denied|not permitted|failed|error|unavailable/i;

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
        else entries.set(id, { setting, value, trials: 1, refused: REFUSED.test(value) });
      }
    }
  }
  return [...entries.values()].sort(
    (a, b) => a.setting.localeCompare(b.setting) || b.trials - a.trials,
  );
}
