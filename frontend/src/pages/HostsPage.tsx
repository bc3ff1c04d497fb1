import { usePermissions } from "../api/auth";

import { useHosts } from "../api/hosts";
import { EmptyState, QueryResult } from "../components/common/Status";
import { HostCard } from "../components/hosts/HostCard";
import { InviteHost } from "../components/hosts/InviteHost";
import { hostCounts } from "../lib/overview";
import { usePageTitle } from "../hooks/usePageTitle";

export function HostsPage() {
  usePageTitle("Hosts");
  const hosts = useHosts();
  const { isAdmin } = usePermissions();
  return (
    <section>
      <header className="page-header">
        <h1>Hosts</h1>
        {hosts.data && hosts.data.length > 0 && (
          <span className="muted">
            {hostCounts(hosts.data).online} online, {hostCounts(hosts.data).offline} offline
          </span>
        )}
      </header>
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
    </section>
  );
}
