import { Navigate, Outlet, useLocation, useNavigate } from "react-router";

import { useLogout, useMe } from "../api/auth";
import { useProjects, useSwitchProject } from "../api/projects";
import { useVocabulary } from "../api/runs";
import { errorMessage, isUnauthorized } from "../api/client";
import { ErrorState, Loading } from "../components/common/Status";
import { AppShell } from "../components/layout/AppShell";
import { configureVocabulary } from "../lib/vocabulary";

/** The frame of every signed-in page; without a session it sends the visitor to /login. */
export function AuthedLayout() {
  const me = useMe();
  const vocabulary = useVocabulary(me.isSuccess);
  const projects = useProjects();
  const switchProject = useSwitchProject();
  const logout = useLogout();
  const location = useLocation();
  const navigate = useNavigate();

  if (me.isPending) return <Loading label="Checking your session…" />;
  if (me.isError) {
    if (isUnauthorized(me.error)) {
      return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
    }
    return (
      <main className="content">
        <ErrorState message={errorMessage(me.error)} onRetry={() => void me.refetch()} />
      </main>
    );
  }

  if (vocabulary.isPending) return <Loading label="Loading…" />;
  if (vocabulary.isError) {
    return (
      <main className="content">
        <ErrorState
          message={errorMessage(vocabulary.error)}
          onRetry={() => void vocabulary.refetch()}
        />
      </main>
    );
  }
  configureVocabulary(vocabulary.data);

  return (
    <AppShell
      userEmail={me.data.email}
      role={me.data.role}
      project={me.data.project}
      projects={projects.data ?? []}
      switching={switchProject.isPending}
      onSwitchProject={(slug) => switchProject.mutate(slug)}
      loggingOut={logout.isPending}
      onLogout={() =>
        logout.mutate(undefined, {
          onSettled: () => void navigate("/login", { replace: true }),
        })
      }
    >
      {me.data.project === null ? (
        <ErrorState message="You are not a member of any project yet; ask an admin to add you." />
      ) : (
        // Remounted on a switch, so no page keeps state of the project before.
        <Outlet key={me.data.project.slug} />
      )}
    </AppShell>
  );
}
