import { useMemo } from "react";
import { Link, useSearchParams } from "react-router";

import { useProfileCompare } from "../api/analysis";
import type { ProfileCompareQuery, ProfileCompareRead, ProfileDelta } from "../api/types";
import { FlameGraph } from "../components/charts/FlameGraph";
import { EmptyState } from "../components/common/Status";
import { RunRefCards } from "../components/compare/RunRefCard";
import { ChangedFramesTable } from "../components/profiles/ChangedFramesTable";
import { DiffLegend } from "../components/profiles/DiffLegend";
import { usePageTitle } from "../hooks/usePageTitle";
import { comparedRuns, parseRunId } from "../lib/compare";
import { changedFrames, diffTree } from "../lib/flamegraph";
import { profileName } from "../lib/profiles";
import { RunsResult } from "./RunsResult";

/**
 * /compare/profiles?baseline=A&candidate=B[&baseline_labels=…&candidate_labels=…&program=…]:
 * the API's query in the address, so the compare page, a confirmation run and an alert can
 * link here. A differential flame graph per matched profile, the frames that changed beside it.
 */
export function ProfileComparePage() {
  usePageTitle("Compare CPU profiles");
  const [search] = useSearchParams();
  const baseline = parseRunId(search.get("baseline"));
  const candidate = parseRunId(search.get("candidate"));
  // Back to the metrics of the same runs and series.
  const metrics = new URLSearchParams(search);
  metrics.delete("program");
  return (
    <section>
      <p className="breadcrumb">
        <Link to={`/compare?${metrics.toString()}`}>Compare</Link> / CPU profiles
      </p>
      <header className="page-header">
        <h1>Compare CPU profiles</h1>
      </header>
      {baseline !== null && candidate !== null ? (
        <ProfileComparison
          query={{
            baseline,
            candidate,
            baseline_labels: search.get("baseline_labels"),
            candidate_labels: search.get("candidate_labels"),
            program: search.get("program"),
          }}
        />
      ) : (
        <EmptyState title="Choose two runs">
          Pick them on the <Link to="/compare">compare page</Link>, then open Compare CPU
          profiles.
        </EmptyState>
      )}
    </section>
  );
}

function ProfileComparison({ query }: { query: ProfileCompareQuery }) {
  return (
    <RunsResult
      query={useProfileCompare(query)}
      runIds={[query.baseline, query.candidate]}
      loading="Comparing the profiles…"
      missing="One of these runs does not exist"
    >
      {(found) => <ProfileComparisonBody compare={found} />}
    </RunsResult>
  );
}

function ProfileComparisonBody({ compare }: { compare: ProfileCompareRead }) {
  const count = compare.profiles.length;
  return (
    <>
      <p className="headline">
        {comparedRuns(compare)}:{" "}
        <strong>
          {count} profile{count === 1 ? "" : "s"} compared
        </strong>
      </p>
      <RunRefCards baseline={compare.baseline} candidate={compare.candidate} />
      {count === 0 ? (
        <EmptyState title="No CPU profiles to compare">
          Neither run profiled a program of a series the other also profiled. A job launched
          with Profile the CPU, a regression&apos;s confirmation, or a CI submission with
          profiles records them.
        </EmptyState>
      ) : (
        <>
          <DiffLegend />
          {compare.profiles.map((delta) => (
            <ProfileDiff
              key={`${String(delta.baseline_profile_id)}-${String(delta.candidate_profile_id)}`}
              delta={delta}
            />
          ))}
        </>
      )}
      {compare.unmatched.length > 0 && (
        <p className="muted">
          Profiled on one side only:{" "}
          {compare.unmatched
            .map((item) => `${profileName(item)} (the ${item.side} only)`)
            .join("; ")}
        </p>
      )}
    </>
  );
}

function ProfileDiff({ delta }: { delta: ProfileDelta }) {
  const tree = useMemo(
    () =>
      diffTree(delta.stacks, {
        baseline: delta.baseline_samples,
        candidate: delta.candidate_samples,
      }),
    [delta],
  );
  const rows = useMemo(() => changedFrames(delta.frames), [delta.frames]);
  const name = profileName(delta);
  return (
    <section className="profile-diff" aria-label={name}>
      <h2>{name}</h2>
      <p className="muted small">
        Candidate: {delta.candidate_tool}, {delta.candidate_samples.toLocaleString("en-US")}{" "}
        samples; baseline: {delta.baseline_tool},{" "}
        {delta.baseline_samples.toLocaleString("en-US")} samples.
        {delta.stacks_left_out > 0 &&
          ` The ${delta.stacks_left_out.toLocaleString("en-US")} lightest stacks are left out` +
            " of the graph (the table counts them)."}
      </p>
      <div className="flame-diff">
        <FlameGraph tree={tree} label={`Differential flame graph of ${name}`} />
        <div>
          <h3>Self share changed most</h3>
          <div className="table-scroll">
            <ChangedFramesTable
              rows={rows}
              label={`Frames whose self share changed most: ${name}`}
            />
          </div>
        </div>
      </div>
    </section>
  );
}
