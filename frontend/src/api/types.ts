/**
 * The API's types, taken from the generated schema by route, so they follow the backend's
 * OpenAPI document whatever its component names.
 */

import type { paths } from "./schema";

type Json<Response> = Response extends { content: { "application/json": infer Body } }
  ? Body
  : never;

/** What an operation is sent: its JSON request body. */
type Sent<Operation> = Operation extends { requestBody?: infer Body }
  ? Json<NonNullable<Body>>
  : never;

export type User = Json<paths["/api/v1/auth/me"]["get"]["responses"][200]>;
export type ProjectRead = Json<paths["/api/v1/projects"]["get"]["responses"][200]>[number];
export type ProjectCreate = Sent<paths["/api/v1/projects"]["post"]>;
export type ProjectUpdate = Sent<paths["/api/v1/projects/{slug}"]["patch"]>;
export type LoginBody = Sent<paths["/api/v1/auth/login"]["post"]>;

export type RunListQuery = NonNullable<paths["/api/v1/runs"]["get"]["parameters"]["query"]>;
export type RunPage = Json<paths["/api/v1/runs"]["get"]["responses"][200]>;
export type RunSummary = RunPage["items"][number];
export type OverviewQuery = NonNullable<paths["/api/v1/overview"]["get"]["parameters"]["query"]>;
export type OverviewPage = Json<paths["/api/v1/overview"]["get"]["responses"][200]>;
export type OverviewRow = OverviewPage["items"][number];
export type RunContext = Json<paths["/api/v1/runs/{run_id}/context"]["get"]["responses"][200]>;
export type SeriesContext = RunContext["series"][number];
export type RunRead = Json<paths["/api/v1/runs/{run_id}"]["get"]["responses"][200]>;
export type SeriesRead = RunRead["series"][number];
export type Summary = SeriesRead["summary"];
export type Spectrum = Json<
  paths["/api/v1/runs/{run_id}/series/{series_id}/spectrum"]["get"]["responses"][200]
>;
export type MetricInfo = RunRead["metric_info"][string];
export type VocabularyRead = Json<paths["/api/v1/vocabulary"]["get"]["responses"][200]>;
export type Sweep = NonNullable<RunRead["sweep"]>;
export type RetentionRead = Json<paths["/api/v1/retention"]["get"]["responses"][200]>;
export type RetentionUpdate = Sent<paths["/api/v1/retention"]["put"]>;
export type VerdictReason = RunRead["verdict_reasons"][number];
export type RunVerdict = NonNullable<RunSummary["verdict"]>;
export type ProfileRead = Json<
  paths["/api/v1/runs/{run_id}/profiles"]["get"]["responses"][200]
>[number];

export type CompareQuery = paths["/api/v1/compare"]["get"]["parameters"]["query"];
export type CompareRead = Json<paths["/api/v1/compare"]["get"]["responses"][200]>;
export type SeriesDelta = CompareRead["series"][number];
export type MetricDelta = SeriesDelta["metrics"][number];
export type Verdict = MetricDelta["verdict"];
export type Direction = MetricDelta["direction"];
export type RunRef = CompareRead["baseline"];
export type ProfileCompareQuery = paths["/api/v1/compare/profiles"]["get"]["parameters"]["query"];
export type ProfileCompareRead = Json<
  paths["/api/v1/compare/profiles"]["get"]["responses"][200]
>;
export type ProfileDelta = ProfileCompareRead["profiles"][number];
export type FrameDelta = ProfileDelta["frames"][number];
export type StackDelta = ProfileDelta["stacks"][number];
export type ProfileUnmatched = ProfileCompareRead["unmatched"][number];
export type TrendQuery = NonNullable<paths["/api/v1/trends"]["get"]["parameters"]["query"]>;
export type TrendRead = Json<paths["/api/v1/trends"]["get"]["responses"][200]>;
export type TrendPoint = TrendRead["points"][number];
export type ChangePoint = TrendRead["change_points"][number];
export type TrendBranch = TrendRead["branches"][number];
export type TrendParamsSet = TrendRead["params_sets"][number];
export type TrendWindow = NonNullable<TrendRead["window"]>;
export type AnnotationQuery = NonNullable<
  paths["/api/v1/annotations"]["get"]["parameters"]["query"]
>;
export type AnnotationRead = Json<paths["/api/v1/annotations"]["get"]["responses"][200]>[number];
export type AnnotationCreate = Sent<paths["/api/v1/annotations"]["post"]>;
export type SharedRead = Json<paths["/api/v1/shared/{token}"]["get"]["responses"][200]>;
export type ShareLinkRead = Json<paths["/api/v1/share-links"]["get"]["responses"][200]>[number];
export type ShareLinkCreate = Sent<paths["/api/v1/share-links"]["post"]>;
export type ShareLinkCreated = Json<paths["/api/v1/share-links"]["post"]["responses"][201]>;
export type EmbedOrigins = Json<paths["/api/v1/embed-origins"]["get"]["responses"][200]>;
export type GateEvidence = RunRead["gate_evidence"][number];
export type GateWindow = GateEvidence["window"];
export type GateSettingsRead = Json<paths["/api/v1/gate-settings"]["get"]["responses"][200]>;
export type GateSettings = Sent<paths["/api/v1/gate-settings"]["put"]>;
export type GateRule = GateSettingsRead["default"];

export type HostRead = Json<paths["/api/v1/hosts"]["get"]["responses"][200]>[number];
export type InvitationCreate = Sent<paths["/api/v1/hosts/invitations"]["post"]>;
export type TuningCheck = HostRead["tuning"][number];
export type SuiteRead = Json<paths["/api/v1/suites"]["get"]["responses"][200]>[number];

export type JobCreate = Sent<paths["/api/v1/jobs"]["post"]>;
export type JobEstimate = Json<paths["/api/v1/jobs/estimate"]["post"]["responses"][200]>;
export type JobListQuery = NonNullable<paths["/api/v1/jobs"]["get"]["parameters"]["query"]>;
export type JobPage = Json<paths["/api/v1/jobs"]["get"]["responses"][200]>;
export type JobRead = JobPage["items"][number];
export type JobStatus = JobRead["status"];

export type RepositoryRead = Json<
  paths["/api/v1/repositories"]["get"]["responses"][200]
>[number];
export type RepositoryCreate = Sent<paths["/api/v1/repositories"]["post"]>;
export type RepositoryUpdate = Sent<paths["/api/v1/repositories/{name}"]["patch"]>;
export type CommitRead = Json<
  paths["/api/v1/repositories/{name}/commits"]["get"]["responses"][200]
>[number];

export type BisectionCreate = Sent<paths["/api/v1/bisections"]["post"]>;
export type BisectionRead = Json<
  paths["/api/v1/bisections/{bisection_id}"]["get"]["responses"][200]
>;
export type BisectionStatus = BisectionRead["status"];
export type BisectionCommit = BisectionRead["commits"][number];
export type CommitState = BisectionCommit["state"];
export type BisectionStep = BisectionRead["steps"][number];

export type ExperimentDocument = Sent<paths["/api/v1/experiments"]["post"]>;
export type ExperimentRead = Json<paths["/api/v1/experiments/{name}"]["get"]["responses"][200]>;
export type ExperimentRunRead = Json<
  paths["/api/v1/experiments/{name}/runs"]["get"]["responses"][200]
>[number];
export type ExpectationJudged = NonNullable<ExperimentRunRead["judgements"]>[number];
export type ExpectationOutcome = ExpectationJudged["outcome"];
export type FigureRead = NonNullable<ExperimentRunRead["figures"]>[number];

export type AlertListQuery = NonNullable<paths["/api/v1/alerts"]["get"]["parameters"]["query"]>;
export type AlertPage = Json<paths["/api/v1/alerts"]["get"]["responses"][200]>;
export type AlertRead = AlertPage["items"][number];
export type Severity = AlertRead["severity"];
export type AlertBulkAction = Sent<paths["/api/v1/alerts/bulk"]["post"]>;
export type DeliveryRead = Json<
  paths["/api/v1/alerts/{alert_id}/deliveries"]["get"]["responses"][200]
>[number];
export type Assignee = Json<paths["/api/v1/alerts/assignees"]["get"]["responses"][200]>[number];
export type ChannelTest = Json<
  paths["/api/v1/channels/{channel_id}/test"]["post"]["responses"][200]
>;

export type SlaRuleCreate = Sent<paths["/api/v1/sla-rules"]["post"]>;
export type SlaRuleRead = Json<paths["/api/v1/sla-rules"]["get"]["responses"][200]>[number];
export type ChannelCreate = Sent<paths["/api/v1/channels"]["post"]>;
export type ChannelRead = Json<paths["/api/v1/channels"]["get"]["responses"][200]>[number];

export type TokenCreate = Sent<paths["/api/v1/tokens"]["post"]>;
export type TokenRead = Json<paths["/api/v1/tokens"]["get"]["responses"][200]>[number];
export type TokenCreated = Json<paths["/api/v1/tokens"]["post"]["responses"][201]>;
export type Scope = TokenRead["scopes"][number];
export type Role = User["role"];
export type UserRead = Json<paths["/api/v1/users"]["get"]["responses"][200]>[number];
export type UserCreate = Sent<paths["/api/v1/users"]["post"]>;
export type UserUpdate = Sent<paths["/api/v1/users/{user_id}"]["patch"]>;

export type AuditQuery = NonNullable<paths["/api/v1/audit"]["get"]["parameters"]["query"]>;
export type AuditPage = Json<paths["/api/v1/audit"]["get"]["responses"][200]>;
export type AuditEvent = AuditPage["items"][number];
