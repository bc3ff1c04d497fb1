import type { ReactNode } from "react";
import { NavLink } from "react-router";

const NAV = [
  { to: "/", label: "Overview", end: true },
  { to: "/runs", label: "Runs", end: false },
  { to: "/compare", label: "Compare", end: false },
  { to: "/trends", label: "Trends", end: false },
  { to: "/alerts", label: "Alerts", end: false },
  { to: "/hosts", label: "Hosts", end: false },
  { to: "/jobs", label: "Jobs", end: false },
  { to: "/settings", label: "Settings", end: false },
] as const;

export function AppShell({
  userEmail,
  role,
  onLogout,
  loggingOut,
  children,
}: {
  userEmail: string;
  role: string;
  onLogout: () => void;
  loggingOut: boolean;
  children: ReactNode;
}) {
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
