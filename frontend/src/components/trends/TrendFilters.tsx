import type { FormEvent } from "react";

import type { SuiteRead } from "../../api/types";

/**
 * Which trend: the suite and scenario (offered from the hosts' catalogue), the branch, the host
 * and the range, as the URL holds them; Show applies them.
 */
export function TrendFilters({
  search,
  suites,
  onApply,
}: {
  search: URLSearchParams;
  suites: SuiteRead[];
  onApply: (values: Record<string, string>) => void;
}) {
  const suite = search.get("suite") ?? "";
  const scenarios = Object.keys(suites.find((item) => item.id === suite)?.scenarios ?? {});
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const values: Record<string, string> = {};
    for (const name of ["suite", "scenario", "branch", "host", "days"])
      values[name] = String(data.get(name) ?? "").trim();
    onApply(values);
  }
  return (
    <form className="filters" onSubmit={submit} aria-label="Choose a trend">
      <label className="filter">
        <span>Suite</span>
        <input name="suite" required defaultValue={suite} list="trend-suites" size={12} />
      </label>
      <datalist id="trend-suites">
        {suites.map((item) => (
          <option key={item.id} value={item.id} />
        ))}
      </datalist>
      <label className="filter">
        <span>Scenario</span>
        <input
          name="scenario"
          required
          defaultValue={search.get("scenario") ?? ""}
          list="trend-scenarios"
          size={12}
        />
      </label>
      <datalist id="trend-scenarios">
        {scenarios.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      <label className="filter">
        <span>Branch</span>
        <input
          name="branch"
          defaultValue={search.get("branch") ?? ""}
          placeholder="main"
          size={10}
        />
      </label>
      <label className="filter">
        <span>Host</span>
        <input name="host" defaultValue={search.get("host") ?? ""} placeholder="any" size={10} />
      </label>
      <label className="filter">
        <span>Range</span>
        <select name="days" defaultValue={search.get("days") ?? ""}>
          <option value="">latest runs</option>
          <option value="90">last 90 days</option>
          <option value="365">last year</option>
        </select>
      </label>
      <div className="filter-actions">
        <button type="submit" className="button button-primary">
          Show
        </button>
      </div>
    </form>
  );
}
