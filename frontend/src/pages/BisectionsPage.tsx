import { Link, useNavigate, useSearchParams } from "react-router";

import { usePermissions } from "../api/auth";
import { useBisections } from "../api/bisections";
import { useSuites } from "../api/hosts";
import { useRepositories } from "../api/repos";
import { BisectionForm } from "../components/bisections/BisectionForm";
import { Badge } from "../components/common/Badge";
import { EmptyState } from "../components/common/Status";
import { Page } from "../components/layout/Page";
import { SettingsTable } from "../components/settings/SettingsTable";
import { usePageTitle } from "../hooks/usePageTitle";
import { bisectionHref, STATUS, type BisectionText } from "../lib/bisections";
import { formatDateTime, formatLabels, shortCommit, stringLabels } from "../lib/format";
import { repositoryHref } from "../lib/repos";

/** The fields a link may fill in: /bisections?repo=orders&good=v1.0&bad=main&series=client=go */
const PREFILLED = ["repo", "good", "bad", "suite", "scenario", "metric", "series"] as const;

const COLUMNS = ["Bisection", "Range", "Suite / scenario", "Metric", "Status", "Result", "Started"];

/**
 * The project's bisections, newest first (the list polls while one is searching), and the
 * form that starts one (members).
 */
export function BisectionsPage() {
  usePageTitle("Bisections");
  const { canWrite } = usePermissions();
  const bisections = useBisections();
  // The form's choices, read for members only.
  const repositories = useRepositories(canWrite);
  const suites = useSuites(canWrite);
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const initial: Partial<BisectionText> = Object.fromEntries(
    PREFILLED.flatMap((name) => {
      const value = search.get(name);
      return value ? [[name, value]] : [];
    }),
  );
  return (
    <Page title="Bisections">
      <p className="muted">
        Which commit made a series&apos; metric worse: a bisection measures a repository&apos;s
        commits between a good and a bad one, two at a time side by side on one host, until it
        names the culprit.
      </p>
      <SettingsTable
        className="bisections-table"
        columns={COLUMNS}
        rows={bisections}
        loading="Loading bisections…"
        empty={
          <EmptyState title="No bisections yet">
            {canWrite ? "Start one below." : "Members start bisections here."}
          </EmptyState>
        }
      >
        {(bisection) => (
          <tr key={bisection.id} data-bisection-id={bisection.id} data-status={bisection.status}>
            <th scope="row">
              <Link to={bisectionHref(bisection.id)}>#{bisection.id}</Link>
            </th>
            <td className="nowrap">
              <Link to={repositoryHref(bisection.repo)}>{bisection.repo}</Link>{" "}
              <span className="mono">
                {shortCommit(bisection.good)}..{shortCommit(bisection.bad)}
              </span>
            </td>
            <td>
              {bisection.suite} / {bisection.scenario}
            </td>
            <td>
              {bisection.metric}
              {Object.keys(bisection.series).length > 0 && (
                <div className="small muted">{formatLabels(stringLabels(bisection.series))}</div>
              )}
            </td>
            <td>
              <Badge tone={STATUS[bisection.status].tone}>{STATUS[bisection.status].text}</Badge>
            </td>
            <td className="wrap small">
              {bisection.message ?? <span className="muted">searching…</span>}
            </td>
            <td className="nowrap">{formatDateTime(bisection.created_at)}</td>
          </tr>
        )}
      </SettingsTable>
      {canWrite && (
        <BisectionForm
          repositories={repositories.data}
          catalogue={suites.data ?? []}
          initial={initial}
          onCreated={(bisection, created) =>
            void navigate(bisectionHref(bisection.id), { state: { existing: !created } })
          }
        />
      )}
    </Page>
  );
}
