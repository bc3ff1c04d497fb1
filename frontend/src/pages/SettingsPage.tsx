import { useEffect } from "react";
import { useLocation } from "react-router";

import { useChannels } from "../api/alerts";
import { useMe, usePermissions } from "../api/auth";
import { QueryResult } from "../components/common/Status";
import { AuditLog } from "../components/settings/AuditLog";
import { Channels } from "../components/settings/Channels";
import { GateSettings } from "../components/settings/GateSettings";
import { Projects, ProjectSettings } from "../components/settings/Projects";
import { Retention } from "../components/settings/Retention";
import { ShareLinks } from "../components/settings/ShareLinks";
import { SlaRules } from "../components/settings/SlaRules";
import { Tokens } from "../components/settings/Tokens";
import { Users } from "../components/settings/Users";
import { usePageTitle } from "../hooks/usePageTitle";

export function SettingsPage() {
  usePageTitle("Settings");
  const { canWrite, isAdmin } = usePermissions();
  const project = useMe().data?.project ?? null;
  const channels = useChannels();
  const location = useLocation();

  // Links such as /settings#sla-rules land on their section once it is rendered.
  useEffect(() => {
    if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
  }, [location.hash]);

  return (
    <section>
      <header className="page-header">
        <h1>Settings</h1>
        {!canWrite && (
          <span className="muted">You can read these settings; a member can change them.</span>
        )}
      </header>
      <nav className="toc" aria-label="Settings sections">
        <a href="#project">Project</a>
        <a href="#gate">CI gate</a>
        <a href="#sla-rules">SLA rules</a>
        <a href="#channels">Alert channels</a>
        <a href="#tokens">API tokens</a>
        <a href="#share-links">Share links</a>
        <a href="#retention">Retention</a>
        {isAdmin && <a href="#projects">All projects</a>}
        {isAdmin && <a href="#users">Users and roles</a>}
        {isAdmin && <a href="#audit">Audit log</a>}
      </nav>

      <h2 id="project">Project</h2>
      {project !== null && <ProjectSettings project={project} isAdmin={isAdmin} />}

      <h2 id="gate">CI gate thresholds</h2>
      <GateSettings isAdmin={isAdmin} />

      <h2 id="sla-rules">SLA rules</h2>
      <SlaRules canWrite={canWrite} channels={channels.data ?? []} />

      <h2 id="channels">Alert channels: Slack, webhooks and email</h2>
      <QueryResult query={channels} loading="Loading channels…">
        {(data) => <Channels channels={data} canWrite={canWrite} />}
      </QueryResult>

      <h2 id="tokens">API tokens</h2>
      <Tokens canWrite={canWrite} />

      <h2 id="share-links">Share links</h2>
      <ShareLinks canWrite={canWrite} isAdmin={isAdmin} />

      <h2 id="retention">Retention</h2>
      <Retention isAdmin={isAdmin} />

      {isAdmin && (
        <>
          <h2 id="projects">All projects</h2>
          <Projects />
          <h2 id="users">Users and roles</h2>
          <Users />
          <h2 id="audit">Audit log</h2>
          <AuditLog />
        </>
      )}
    </section>
  );
}
