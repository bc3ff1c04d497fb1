/**
 * The API's types, taken from the generated schema by route, so they follow the backend's
 * OpenAPI document whatever its component names.
 */

import type { paths } from "./schema";

type Json<Response> = Response extends { content: { "application/json": infer Body } }
  ? Body
  : never;

export type User = Json<paths["/api/v1/auth/me"]["get"]["responses"][200]>;
export type LoginBody = NonNullable<
  paths["/api/v1/auth/login"]["post"]["requestBody"]
>["content"]["application/json"];

export type RunListQuery = NonNullable<paths["/api/v1/runs"]["get"]["parameters"]["query"]>;
export type RunPage = Json<paths["/api/v1/runs"]["get"]["responses"][200]>;
export type RunSummary = RunPage["items"][number];
export type RunRead = Json<paths["/api/v1/runs/{run_id}"]["get"]["responses"][200]>;
export type SeriesRead = RunRead["series"][number];
export type Summary = SeriesRead["summary"];
export type Spectrum = Json<
  paths["/api/v1/runs/{run_id}/series/{series_id}/spectrum"]["get"]["responses"][200]
>;
