import type { ReactNode } from "react";
import { NavLink } from "react-router";

export function AppShell({
  userEmail,
  onLogout,
  loggingOut,
  children,
}: {
  userEmail: string;
  onLogout: () => void;
  loggingOut: boolean;
  children: ReactNode;
}) {
  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">latlab</span>
        <nav aria-label="Main">
          <NavLink to="/runs" className="nav-link">
            Runs
          </NavLink>
        </nav>
        <div className="account">
          <span className="account-email">{userEmail}</span>
          <button type="button" className="button" onClick={onLogout} disabled={loggingOut}>
            Log out
          </button>
        </div>
      </header>
      <main className="content">{children}</main>
    </div>
  );
}
