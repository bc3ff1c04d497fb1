import { Link, useNavigate } from "react-router";

import { usePermissions } from "../api/auth";
import { useExperiments } from "../api/experiments";
import { EmptyState } from "../components/common/Status";
import { ExperimentForm } from "../components/experiments/ExperimentForm";
import { Page } from "../components/layout/Page";
import { SettingsTable } from "../components/settings/SettingsTable";
import { usePageTitle } from "../hooks/usePageTitle";
import { experimentHref } from "../lib/experiments";
import { formatDateTime } from "../lib/format";

const COLUMNS = ["Experiment", "Title", "Version", "Jobs", "Expectations", "Saved"];

/** The project's experiments, each at its latest version, and the form that saves one. */
export function ExperimentsPage() {
  usePageTitle("Experiments");
  const { canWrite } = usePermissions();
  const experiments = useExperiments();
  const navigate = useNavigate();
  return (
    <Page title="Experiments">
      <p className="muted">
        A study the lab can run again on any host: its jobs, the series it compares, and what
        it expects of them, judged with the trials&apos; statistics as holds, does not hold or
        not decided.
      </p>
      <SettingsTable
        className="experiments-table"
        columns={COLUMNS}
        rows={experiments}
        loading="Loading experiments…"
        empty={
          <EmptyState title="No experiments yet">
            {canWrite ? "Save one below." : "Members save experiments here."}
          </EmptyState>
        }
      >
        {(experiment) => (
          <tr key={experiment.name} data-experiment={experiment.name}>
            <th scope="row">
              <Link to={experimentHref(experiment.name)}>{experiment.name}</Link>
            </th>
            <td className="wrap">{experiment.title}</td>
            <td>{experiment.version}</td>
            <td>{Object.keys(experiment.jobs).length}</td>
            <td>{(experiment.expectations ?? []).length}</td>
            <td className="nowrap">{formatDateTime(experiment.created_at)}</td>
          </tr>
        )}
      </SettingsTable>
      {canWrite && (
        <ExperimentForm
          onSaved={(experiment) => void navigate(experimentHref(experiment.name))}
        />
      )}
    </Page>
  );
}
