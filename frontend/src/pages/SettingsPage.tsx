import { useEffect, useState } from "react";
import { useLocation } from "react-router";

import { useChannels, useRules, useRuleTemplates } from "../api/alerts";
import { useGateSettings } from "../api/analysis";
import { useAuditEvents } from "../api/audit";
import { useMe, usePermissions, useTokens, useUsers } from "../api/auth";
import { useProjects } from "../api/projects";
import { useRetention } from "../api/runs";
import { useEmbedOrigins, useShareLinks } from "../api/sharing";
import { QueryResult } from "../components/common/Status";
import { Page } from "../components/layout/Page";
import { AUDIT_PAGE, AuditLog } from "../components/settings/AuditLog";
import { Channels } from "../components/settings/Channels";
import { GateSettings } from "../components/settings/GateSettings";
import { Projects, ProjectSettings } from "../components/settings/Projects";
import { Retention } from "../components/settings/Retention";
import { ShareLinks } from "../components/settings/ShareLinks";
import { SlaRules } from "../components/settings/SlaRules";
import { Tokens } from "../components/settings/Tokens";
import { Users } from "../components/settings/Users";
import { usePageTitle } from "../hooks/usePageTitle";

/** Every setting of the project, a section each; the admins' sections (and their reads) only
 * for admins. */
export function SettingsPage() {
  usePageTitle("Settings");
  const { canWrite, isAdmin } = usePermissions();
  const me = useMe();
  const project = me.data?.project ?? null;
  const gate = useGateSettings();
  const rules = useRules();
  const templates = useRuleTemplates(canWrite);
  const channels = useChannels();
  const tokens = useTokens();
  const shareLinks = useShareLinks();
  const origins = useEmbedOrigins();
  const retention = useRetention();
  const projects = useProjects();
  const users = useUsers(isAdmin);
  const [auditOffset, setAuditOffset] = useState(0);
  const audit = useAuditEvents({ limit: AUDIT_PAGE, offset: auditOffset }, isAdmin);
  const location = useLocation();

  // Links such as /settings#sla-rules land on their section once it is rendered.
  useEffect(() => {
    if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
  }, [location.hash]);

  return (
    <Page
      title="Settings"
      aside={
        !canWrite && (
          <span className="muted">You can read these settings; a member can change them.</span>
        )
      }
    >
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
      <QueryResult query={gate} loading="Loading gate thresholds…">
        {(settings) => <GateSettings settings={settings} isAdmin={isAdmin} />}
      </QueryResult>

      <h2 id="sla-rules">SLA rules</h2>
      <SlaRules
        rules={rules}
        templates={templates}
        canWrite={canWrite}
        channels={channels.data ?? []}
      />

      <h2 id="channels">Alert channels: Slack, webhooks and email</h2>
      <QueryResult query={channels} loading="Loading channels…">
        {(data) => <Channels channels={data} canWrite={canWrite} />}
      </QueryResult>

      <h2 id="tokens">API tokens</h2>
      <Tokens tokens={tokens} canWrite={canWrite} />

      <h2 id="share-links">Share links</h2>
      <ShareLinks
        links={shareLinks}
        origins={origins.data}
        canWrite={canWrite}
        isAdmin={isAdmin}
      />

      <h2 id="retention">Retention</h2>
      <QueryResult query={retention} loading="Loading retention…">
        {(current) => (
          <Retention key={JSON.stringify(current)} current={current} isAdmin={isAdmin} />
        )}
      </QueryResult>

      {isAdmin && (
        <>
          <h2 id="projects">All projects</h2>
          <QueryResult query={projects} loading="Loading projects…">
            {(data) => <Projects projects={data} />}
          </QueryResult>
          <h2 id="users">Users and roles</h2>
          <Users users={users} projects={projects.data ?? []} selfId={me.data?.id} />
          <h2 id="audit">Audit log</h2>
          <AuditLog events={audit} offset={auditOffset} onOffsetChange={setAuditOffset} />
        </>
      )}
    </Page>
  );
}
