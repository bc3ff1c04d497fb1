import { useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";

import { usePermissions } from "../api/auth";
import { errorMessage } from "../api/client";
import { useExperiment, useExperimentRuns, useRunExperiment } from "../api/experiments";
import { Badge } from "../components/common/Badge";
import { TextField } from "../components/common/Field";
import { FormPanel } from "../components/common/FormPanel";
import { EmptyState, QueryResult } from "../components/common/Status";
import { TableHead } from "../components/common/TableHead";
import { RunJudgements } from "../components/experiments/RunJudgements";
import { RunsSideBySide } from "../components/experiments/RunsSideBySide";
import { SettingsTable } from "../components/settings/SettingsTable";
import { usePageTitle } from "../hooks/usePageTitle";
import { experimentHref, outcomeCounts } from "../lib/experiments";
import { formatDateTime, formatLabels, stringLabels } from "../lib/format";

const RUN_COLUMNS = ["Run", "Version", "Status", "Holds", "Does not hold", "Not decided",
  "Launched", "Beside"];
const STATUS_TONE = { running: "active", done: "good", failed: "bad" } as const;

/**
 * An experiment: its question, jobs, series and expectations; a member runs it on hosts with
 * some tags; its runs (polled while one runs), one of them judged (?run=), another beside it
 * (?against=).
 */
export function ExperimentPage() {
  const { name = "" } = useParams();
  usePageTitle(`Experiment ${name}`);
  const { canWrite } = usePermissions();
  const experiment = useExperiment(name);
  const runs = useExperimentRuns(name);
  const [search] = useSearchParams();
  const shownId = Number(search.get("run") ?? runs.data?.[0]?.id ?? NaN);
  const againstId = Number(search.get("against") ?? NaN);
  const shown = runs.data?.find((run) => run.id === shownId);
  const against = runs.data?.find((run) => run.id === againstId);

  return (
    <QueryResult
      query={experiment}
      loading="Loading the experiment…"
      missing={`No experiment ${name}`}
    >
      {(found) => (
        <section>
          <header className="page-header">
            <h1>{found.title}</h1>
            <span className="muted">
              <Link to="/experiments">Experiments</Link> / {found.name}, version {found.version}
            </span>
          </header>
          {found.question && <p>{found.question}</p>}
          <div className="table-scroll">
            <table className="table experiment-jobs">
              <TableHead columns={["Job", "Suite / scenario", "Params", "Trials"]} />
              <tbody>
                {Object.entries(found.jobs).map(([job, spec]) => (
                  <tr key={job}>
                    <th scope="row">{job}</th>
                    <td>
                      {spec.suite} / {spec.scenario}
                    </td>
                    <td className="wrap small mono">{formatLabels(stringLabels(spec.params ?? {}))}</td>
                    <td>{spec.repetitions}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h2>Expectations</h2>
          <ul className="expectations">
            {(found.expectations ?? []).map((text) => (
              <li key={text} className="mono">
                {text}
              </li>
            ))}
          </ul>
          {canWrite && <RunForm name={found.name} />}
          <h2>Runs</h2>
          <SettingsTable
            className="experiment-runs"
            columns={RUN_COLUMNS}
            rows={runs}
            loading="Loading its runs…"
            empty={<EmptyState title="Not run yet" />}
          >
            {(run) => {
              const counts = outcomeCounts(run);
              const judged = run.judgements !== null && run.judgements !== undefined;
              return (
                <tr key={run.id} data-run={run.id} aria-current={run.id === shown?.id || undefined}>
                  <th scope="row">
                    <Link to={experimentHref(name, run.id)}>#{run.id}</Link>
                  </th>
                  <td>{run.version}</td>
                  <td>
                    <Badge tone={STATUS_TONE[run.status]}>{run.status}</Badge>
                  </td>
                  <td>{judged ? counts.holds : "–"}</td>
                  <td>{judged ? counts["does-not-hold"] : "–"}</td>
                  <td>{judged ? counts["not-decided"] : "–"}</td>
                  <td className="nowrap">{formatDateTime(run.created_at)}</td>
                  <td>
                    {shown && run.id !== shown.id && judged && (
                      <Link to={experimentHref(name, shown.id, run.id)}>
                        beside #{shown.id}
                      </Link>
                    )}
                  </td>
                </tr>
              );
            }}
          </SettingsTable>
          {shown && against && <RunsSideBySide first={shown} second={against} />}
          {shown && <RunJudgements name={found.name} run={shown} />}
        </section>
      )}
    </QueryResult>
  );
}

/** "Run it": on hosts with these tags (any host offering its suites when none). */
function RunForm({ name }: { name: string }) {
  const run = useRunExperiment(name);
  const [tags, setTags] = useState("");
  const [errors, setErrors] = useState<string[]>([]);

  function submit() {
    setErrors([]);
    const hostTags = tags
      .split(",")
      .map((tag) => tag.trim())
      .filter(Boolean);
    run.mutate(hostTags, { onError: (error) => setErrors([errorMessage(error)]) });
  }

  return (
    <FormPanel
      id="run-experiment"
      title="Run it"
      submitLabel="Run"
      pending={run.isPending}
      errors={errors}
      onSubmit={submit}
    >
      <TextField
        label="Host tags"
        hint="Comma-separated; none: any host offering its suites"
        value={tags}
        onChange={setTags}
      />
    </FormPanel>
  );
}
