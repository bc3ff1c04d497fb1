import type { ReactNode } from "react";
import { NavLink } from "react-router";

import type { ProjectRead } from "../../api/types";

const NAV = [
  { to: "/", label: "Overview", end: true },
  { to: "/runs", label: "Runs", end: false },
  { to: "/compare", label: "Compare", end: false },
  { to: "/trends", label: "Trends", end: false },
  { to: "/alerts", label: "Alerts", end: false },
  { to: "/hosts", label: "Hosts", end: false },
  { to: "/jobs", label: "Jobs", end: false },
  { to: "/repositories", label: "Repositories", end: false },
  { to: "/bisections", label: "Bisections", end: false },
  { to: "/experiments", label: "Experiments", end: false },
  { to: "/settings", label: "Settings", end: false },
] as const;

export function AppShell({
  userEmail,
  role,
  project,
  projects,
  onSwitchProject,
  switching,
  onLogout,
  loggingOut,
  children,
}: {
  userEmail: string;
  role: string;
  project: ProjectRead | null;
  projects: ProjectRead[];
  onSwitchProject: (slug: string) => void;
  switching: boolean;
  onLogout: () => void;
  loggingOut: boolean;
  children: ReactNode;
}) {
  // Archived projects stay reachable only while they are the current one.
  const choices = projects.filter((p) => p.archived_at === null || p.slug === project?.slug);
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">latlab</span>
        <nav aria-label="Main" className="nav">
          {NAV.map((item) => (
            <NavLink key={item.to} to={item.to} end={item.end} className="nav-link">
              {item.label}
            </NavLink>
          ))}
        </nav>
        <label className="project-switcher">
          <span className="muted small">Project</span>
          <select
            aria-label="Project"
            value={project?.slug ?? ""}
            disabled={switching || choices.length === 0}
            onChange={(event) => onSwitchProject(event.target.value)}
          >
            {project === null && <option value="">(none)</option>}
            {choices.map((p) => (
              <option key={p.slug} value={p.slug}>
                {p.name}
                {p.archived_at !== null ? " (archived)" : ""}
              </option>
            ))}
          </select>
        </label>
        <div className="account">
          <span className="account-email">
            {userEmail} <span className="muted small">({role})</span>
          </span>
          <button type="button" className="button" onClick={onLogout} disabled={loggingOut}>
            Log out
          </button>
        </div>
      </header>
      <main className="content" id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
