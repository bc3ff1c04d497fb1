import { usePermissions } from "../api/auth";
import { errorMessage } from "../api/client";
import { useHosts } from "../api/hosts";
import { EmptyState, ErrorState, Loading } from "../components/common/Status";
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
      {hosts.isPending ? (
        <Loading label="Loading hosts…" />
      ) : hosts.isError ? (
        <ErrorState message={errorMessage(hosts.error)} onRetry={() => void hosts.refetch()} />
      ) : hosts.data.length === 0 ? (
        <EmptyState title="No hosts yet">
          A host appears once an admin invites it and its runner joins and starts.
        </EmptyState>
      ) : (
        <div className="host-list">
          {hosts.data.map((host) => (
            <HostCard key={host.id} host={host} canRevoke={isAdmin} />
          ))}
        </div>
      )}
      {isAdmin && <InviteHost />}
    </section>
  );
}
