import { Link } from "react-router";

import type { RunContext, RunRead } from "../../api/types";
import { bisectionHref } from "../../lib/bisections";
import type { TuningEntry } from "../../lib/tuning";
import { formatLabels } from "../../lib/format";
import { metricLabel } from "../../lib/vocabulary";
import { Badge } from "../common/Badge";
import { RunVerdictBadge } from "../common/VerdictBadge";

const VERDICT_TEXT: Record<string, string> = {
  pass: "Passed its CI gate",
  fail: "Failed its CI gate",
  inconclusive: "Inconclusive: its trials cannot settle a change",
  "no-baseline": "No baseline to judge against",
};

/**
 * What a reader must see first on a run page: its verdict with the reasons, operations its
 * harness counted as failed, what the harness adapter could not read, tuning the host
 * refused (the run did not measure what it asked for), and the alerts it opened.
 */
export function RunBanner({
  run,
  tuning,
  alerts,
}: {
  run: RunRead;
  tuning: TuningEntry[];
  alerts: RunContext["alerts"];
}) {
  const refused = tuning.filter((entry) => entry.state === "refused");
  const failed = run.series.filter((series) => series.failures);
  const failing =
    run.verdict === "fail" || refused.length > 0 || alerts.length > 0 || failed.length > 0;
  return (
    <section
      className={`run-banner${failing ? " run-banner-bad" : ""}`}
      aria-label="Run at a glance"
    >
      <p>
        <RunVerdictBadge verdict={run.verdict} />{" "}
        <strong>{run.verdict ? VERDICT_TEXT[run.verdict] : "Not judged by the CI gate"}</strong>
        {run.verdict_reasons.length > 0 && (
          <>
            {": "}
            {run.verdict_reasons
              .slice(0, 3)
              .map((reason) => {
                const metric = reason.metric
                  ? `${metricLabel(reason.metric, run.metric_info[reason.metric])} of `
                  : "";
                // A try job's metric by what head did against base.
                const what = (reason.outcome ?? reason.kind).replace(/-/g, " ");
                return `${metric}${formatLabels(reason.series)} (${what})`;
              })
              .join("; ")}
            {run.verdict_reasons.length > 3 && ` and ${String(run.verdict_reasons.length - 3)} more`}
            {" · "}
            <a href="#ci-verdict">why</a>
          </>
        )}
      </p>
      {failed.length > 0 && (
        <p className="text-bad" role="note" aria-label="Failed operations">
          Failed operations{run.errors_expected ? " (the submission expects errors)" : ""}:{" "}
          {failed
            .map((series) => {
              const counted = series.failures;
              if (!counted) return "";
              const share =
                counted.total !== null
                  ? ` of ${counted.total.toLocaleString("en")} (${(
                      (100 * counted.failed) /
                      counted.total
                    ).toPrecision(3)} %)`
                  : "";
              return `${formatLabels(series.labels)}: ${counted.failed.toLocaleString("en")}${share}, ${counted.detail}`;
            })
            .join("; ")}
        </p>
      )}
      {run.harness && run.harness.notes.length > 0 && (
        <ul className="plain-list warning" aria-label="What the harness adapter could not read">
          {run.harness.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
      {refused.length > 0 && (
        <p className="text-bad">
          Refused tuning:{" "}
          {refused.map((entry) => `${entry.setting} (${entry.detail})`).join("; ")} ·{" "}
          <a href="#host-tuning">details</a>
        </p>
      )}
      {alerts.length > 0 && (
        <ul className="plain-list" aria-label="Alerts this run opened">
          {alerts.map((alert) => (
            <li key={alert.id}>
              <Badge tone={alert.severity === "critical" ? "bad" : "neutral"}>
                {alert.severity}
              </Badge>{" "}
              <Link to={`/alerts?state=${alert.state}`}>alert #{alert.id}</Link> ({alert.state}):{" "}
              {alert.message}
              {alert.bisection && <AlertBisection bisection={alert.bisection} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The bisection an alert started: searching, or how it ended (the culprits and their change). */
function AlertBisection({
  bisection,
}: {
  bisection: NonNullable<RunContext["alerts"][number]["bisection"]>;
}) {
  const said =
    bisection.status === "running"
      ? "searching for the commit"
      : (bisection.message ?? bisection.status.replace(/-/g, " "));
  return (
    <div data-testid="alert-bisection">
      <Link to={bisectionHref(bisection.id)}>Bisection #{bisection.id}</Link>: {said}
    </div>
  );
}
