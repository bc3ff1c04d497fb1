import { usePermissions } from "../api/auth";
import { useHosts } from "../api/hosts";
import { EmptyState, QueryResult } from "../components/common/Status";
import { HostCard } from "../components/hosts/HostCard";
import { InviteHost } from "../components/hosts/InviteHost";
import { Page } from "../components/layout/Page";
import { usePageTitle } from "../hooks/usePageTitle";
import { hostCounts } from "../lib/overview";

export function HostsPage() {
  usePageTitle("Hosts");
  const hosts = useHosts();
  const { isAdmin } = usePermissions();
  return (
    <Page
      title="Hosts"
      aside={
        hosts.data && hosts.data.length > 0 && (
          <span className="muted">
            {hostCounts(hosts.data).online} online, {hostCounts(hosts.data).offline} offline
          </span>
        )
      }
    >
      <QueryResult
        query={hosts}
        loading="Loading hosts…"
        isEmpty={(data) => data.length === 0}
        empty={
          <EmptyState title="No hosts yet">
            A host appears once an admin invites it and its runner joins and starts.
          </EmptyState>
        }
      >
        {(data) => (
          <div className="host-list">
            {data.map((host) => (
              <HostCard key={host.id} host={host} canRevoke={isAdmin} />
            ))}
          </div>
        )}
      </QueryResult>
      {isAdmin && <InviteHost />}
    </Page>
  );
}
