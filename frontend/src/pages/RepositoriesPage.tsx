import { Link } from "react-router";

import { usePermissions } from "../api/auth";
import { useRepositories } from "../api/repos";
import { EmptyState } from "../components/common/Status";
import { Page } from "../components/layout/Page";
import { RepositoryForm } from "../components/repos/RepositoryForm";
import { SettingsTable } from "../components/settings/SettingsTable";
import { usePageTitle } from "../hooks/usePageTitle";
import { formatDateTime } from "../lib/format";
import { repositoryHref } from "../lib/repos";

/** The project's git repositories, whose code the lab's hosts build and measure at a commit. */
export function RepositoriesPage() {
  usePageTitle("Repositories");
  const { canWrite } = usePermissions();
  const repositories = useRepositories();
  return (
    <Page title="Repositories">
      <p className="muted">
        Your own code on the lab&apos;s hosts: open a repository to see its recent commits, run a
        suite at one of them, or measure two side by side on one host (a try job).
      </p>
      <SettingsTable
        className="repositories-table"
        columns={["Name", "URL", "Default branch", "Credentials", "Build network", "Registered"]}
        rows={repositories}
        loading="Loading repositories…"
        empty={
          <EmptyState title="No repositories yet">
            {canWrite ? "Register one below." : "Members register repositories here."}
          </EmptyState>
        }
      >
        {(repo) => (
          <tr key={repo.id} data-repository={repo.name}>
            <th scope="row">
              <Link to={repositoryHref(repo.name)}>{repo.name}</Link>
            </th>
            <td className="mono wrap">{repo.url}</td>
            <td className="mono">{repo.default_branch}</td>
            <td>{repo.has_secret ? "yes" : "none"}</td>
            <td>{repo.build_network ? "on" : "off (loopback only)"}</td>
            <td className="nowrap">{formatDateTime(repo.created_at)}</td>
          </tr>
        )}
      </SettingsTable>
      {canWrite && <RepositoryForm />}
    </Page>
  );
}
