import type { ReactElement } from "react";
import { Navigate, Outlet, useLocation, useNavigate } from "react-router";

import { useLogout, useMe } from "../api/auth";
import { isUnauthorized } from "../api/client";
import { useProjects, useSwitchProject } from "../api/projects";
import { useVocabulary } from "../api/runs";
import { ErrorState, QueryResult } from "../components/common/Status";
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

  if (isUnauthorized(me.error)) {
    return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  }
  // A failure here has no page around it: it stands in the content's place.
  const inContent = (state: ReactElement) => <main className="content">{state}</main>;
  return (
    <QueryResult query={me} loading="Checking your session…" errorFrame={inContent}>
      {(user) => (
        <QueryResult query={vocabulary} loading="Loading…" errorFrame={inContent}>
          {(words) => {
            configureVocabulary(words);
            return (
              <AppShell
                userEmail={user.email}
                role={user.role}
                project={user.project}
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
                {user.project === null ? (
                  <ErrorState message="You are not a member of any project yet; ask an admin to add you." />
                ) : (
                  // Remounted on a switch, so no page keeps state of the project before.
                  <Outlet key={user.project.slug} />
                )}
              </AppShell>
            );
          }}
        </QueryResult>
      )}
    </QueryResult>
  );
}
