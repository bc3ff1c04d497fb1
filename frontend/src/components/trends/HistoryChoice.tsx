import type { TrendBranch, TrendRead } from "../../api/types";
import { formatParams, mergeParamsSets, paramsParam } from "../../lib/trends";

/**
 * Which history is drawn: the branch and params, named, with the other branches and params
 * sets of the series to choose from (each is a history of its own).
 */
export function HistoryChoice({
  trends,
  names,
  onBranch,
  onParams,
}: {
  trends: TrendRead[];
  names: string[];
  onBranch: (name: string) => void;
  onParams: (params: string) => void;
}) {
  const first = trends[0];
  if (first === undefined) return null;
  const branch = first.branch;
  const branches = new Map<string, TrendBranch>();
  for (const item of trends.flatMap((trend) => trend.branches))
    if ((branches.get(item.name)?.runs ?? -1) < item.runs) branches.set(item.name, item);
  const others = [...branches.values()].filter((item) => item.name !== branch);
  const sets = mergeParamsSets(trends.map((trend) => trend.params_sets));
  const drawn = [...new Set(trends.map((trend) => paramsParam(trend.params)))];
  // The set drawn as the answer names it (a param the suite added later may be left out of
  // the params asked for).
  const current = sets.find((set) => set.drawn);
  const value = drawn.length === 1 && current ? paramsParam(current.params) : "";
  return (
    <div className="trend-history" role="group" aria-label="History drawn">
      <p>
        Branch <strong data-testid="trend-branch">{branch}</strong>
        {others.length > 0 && (
          <>
            {" "}
            <span className="muted">· other branches:</span>{" "}
            {others.map((item, index) => (
              <span key={item.name}>
                {index > 0 && ", "}
                <button type="button" className="link-button" onClick={() => onBranch(item.name)}>
                  {item.name}
                </button>{" "}
                <span className="muted small">({runs(item.runs)})</span>
              </span>
            ))}
          </>
        )}
      </p>
      <p>
        Params{" "}
        {drawn.length === 1 ? (
          <strong data-testid="trend-params">{formatParams(first.params)}</strong>
        ) : (
          <span data-testid="trend-params">
            {trends.map((trend, index) => (
              <span key={index}>
                {index > 0 && "; "}
                {names[index]}: <strong>{formatParams(trend.params)}</strong>
              </span>
            ))}
          </span>
        )}
        {sets.length > 1 && (
          <>
            {" "}
            <label>
              <span className="muted">· draw the runs with</span>{" "}
              <select
                aria-label="Params"
                value={value}
                onChange={(event) => event.target.value && onParams(event.target.value)}
              >
                {value === "" && <option value="">(choose params)</option>}
                {sets.map((set) => (
                  <option key={paramsParam(set.params)} value={paramsParam(set.params)}>
                    {formatParams(set.params)} ({runs(set.runs)})
                  </option>
                ))}
              </select>
            </label>
          </>
        )}
      </p>
    </div>
  );
}

function runs(count: number): string {
  return `${String(count)} run${count === 1 ? "" : "s"}`;
}
