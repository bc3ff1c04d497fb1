/** Every TanStack Query key of the app, so invalidation has one place to look. */

import type {
  AlertListQuery,
  AnnotationQuery,
  AuditQuery,
  CompareQuery,
  JobCreate,
  JobListQuery,
  OverviewQuery,
  ProfileCompareQuery,
  RunListQuery,
  TrendQuery,
} from "./types";

export const keys = {
  auth: {
    all: ["auth"] as const,
    me: () => [...keys.auth.all, "me"] as const,
    tokens: () => [...keys.auth.all, "tokens"] as const,
    users: () => [...keys.auth.all, "users"] as const,
    providers: () => [...keys.auth.all, "providers"] as const,
  },
  projects: {
    all: ["projects"] as const,
    list: () => [...keys.projects.all, "list"] as const,
  },
  runs: {
    all: ["runs"] as const,
    list: (query: RunListQuery) => [...keys.runs.all, "list", query] as const,
    detail: (runId: number) => [...keys.runs.all, "detail", runId] as const,
    project: (runId: number) => [...keys.runs.detail(runId), "project"] as const,
    context: (runId: number) => [...keys.runs.detail(runId), "context"] as const,
    overview: (query: OverviewQuery) => [...keys.runs.all, "overview", query] as const,
    spectra: (runId: number, seriesIds: number[]) =>
      [...keys.runs.detail(runId), "spectra", seriesIds] as const,
    profiles: (runId: number) => [...keys.runs.detail(runId), "profiles"] as const,
    profile: (runId: number, profileId: number) =>
      [...keys.runs.profiles(runId), profileId] as const,
    vocabulary: () => [...keys.runs.all, "vocabulary"] as const,
    retention: () => [...keys.runs.all, "retention"] as const,
  },
  analysis: {
    all: ["analysis"] as const,
    compare: (query: CompareQuery) => [...keys.analysis.all, "compare", query] as const,
    compareProfiles: (query: ProfileCompareQuery) =>
      [...keys.analysis.all, "compare-profiles", query] as const,
    trends: (query: TrendQuery) => [...keys.analysis.all, "trends", query] as const,
    trendSeries: (suite: string, scenario: string, runId: number | null) =>
      [...keys.analysis.all, "trend-series", suite, scenario, runId] as const,
    baselines: () => [...keys.analysis.all, "baselines"] as const,
    gateSettings: () => [...keys.analysis.all, "gate-settings"] as const,
  },
  annotations: {
    all: ["annotations"] as const,
    list: (query: AnnotationQuery) => [...keys.annotations.all, "list", query] as const,
  },
  sharing: {
    all: ["sharing"] as const,
    shared: (token: string) => [...keys.sharing.all, "shared", token] as const,
    links: () => [...keys.sharing.all, "links"] as const,
    origins: () => [...keys.sharing.all, "origins"] as const,
  },
  hosts: {
    all: ["hosts"] as const,
    list: () => [...keys.hosts.all, "list"] as const,
    suites: () => [...keys.hosts.all, "suites"] as const,
  },
  jobs: {
    all: ["jobs"] as const,
    list: (query: JobListQuery) => [...keys.jobs.all, "list", query] as const,
    detail: (jobId: number) => [...keys.jobs.all, "detail", jobId] as const,
    estimate: (body: JobCreate) => [...keys.jobs.all, "estimate", body] as const,
  },
  repos: {
    all: ["repos"] as const,
    list: () => [...keys.repos.all, "list"] as const,
    detail: (name: string) => [...keys.repos.all, "detail", name] as const,
    commits: (name: string, ref: string) => [...keys.repos.detail(name), "commits", ref] as const,
  },
  bisections: {
    all: ["bisections"] as const,
    list: () => [...keys.bisections.all, "list"] as const,
    detail: (bisectionId: number) => [...keys.bisections.all, "detail", bisectionId] as const,
  },
  experiments: {
    all: ["experiments"] as const,
    list: () => [...keys.experiments.all, "list"] as const,
    detail: (name: string) => [...keys.experiments.all, "detail", name] as const,
    runs: (name: string) => [...keys.experiments.detail(name), "runs"] as const,
  },
  alerts: {
    all: ["alerts"] as const,
    list: (query: AlertListQuery) => [...keys.alerts.all, "list", query] as const,
    deliveries: (alertId: number) => [...keys.alerts.all, "deliveries", alertId] as const,
    assignees: () => [...keys.alerts.all, "assignees"] as const,
    rules: () => [...keys.alerts.all, "rules"] as const,
    templates: () => [...keys.alerts.all, "templates"] as const,
    channels: () => [...keys.alerts.all, "channels"] as const,
  },
  audit: {
    all: ["audit"] as const,
    list: (query: AuditQuery) => [...keys.audit.all, "list", query] as const,
  },
};
