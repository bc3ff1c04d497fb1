import { useDeferredValue, useMemo, useState, type FormEvent, type ReactNode } from "react";

import { errorMessage, refusal } from "../../api/client";
import { useCreateJob, useJobEstimate } from "../../api/jobs";
import type { JobCreate, SuiteRead } from "../../api/types";
import {
  checkLaunch,
  describeEstimate,
  LAB_REPETITIONS,
  parseMaxMinutes,
  type LaunchText,
} from "../../lib/jobs";
import {
  checkParams,
  effectiveDefaults,
  initialInputs,
  paramFields,
  problemsByField,
  type ParamInputs,
} from "../../lib/params";
import { repoParamInputs, targetFields, targetProblem, type RepoTarget } from "../../lib/repos";
import { CheckField, FormErrors, SelectField, TextField } from "../common/Field";
import { ParamInput } from "./ParamInput";

/** A job of a repository's code: what it measures, and the fields that choose it. */
export interface RepoLaunch {
  target: RepoTarget;
  /** Its fields, first in the form (the refs). */
  fields: ReactNode;
  /** The repetitions the form starts with (a try job's default differs). */
  repetitions: number;
}

/** The launch fields' errors: the form's own, and a try job's cap of lab time. */
type LaunchErrors = Partial<Record<keyof LaunchText | "maxMinutes", string>>;

/**
 * Launch a job from the suite catalogue: the scenario, its parameters as the suite's schema
 * describes them (checked here, then by the server, whose problems land on their fields),
 * host tags, repetitions and a timeout (by default from the job's estimate, shown as the
 * form changes). With `repo`, the job measures a repository's code (launched from its page):
 * a param choosing the server starts at the repository's.
 */
export function JobLaunchForm({
  suites,
  knownTags,
  onLaunched,
  title = "Launch a job",
  repo,
}: {
  suites: SuiteRead[];
  knownTags: string[];
  onLaunched: (jobIds: number[]) => void;
  title?: string;
  repo?: RepoLaunch;
}) {
  const [suiteId, setSuiteId] = useState(suites[0]?.id ?? "");
  const suite = suites.find((item) => item.id === suiteId) ?? suites[0];
  if (suite === undefined) return null;
  return (
    <SuiteForm
      // A new suite starts a fresh form: its params differ (and so do a try job's repetitions).
      key={`${suite.id} ${String(repo?.repetitions ?? LAB_REPETITIONS)}`}
      suite={suite}
      suites={suites}
      onSuite={setSuiteId}
      knownTags={knownTags}
      onLaunched={onLaunched}
      title={title}
      repo={repo}
    />
  );
}

function SuiteForm({
  suite,
  suites,
  onSuite,
  knownTags,
  onLaunched,
  title,
  repo,
}: {
  suite: SuiteRead;
  suites: SuiteRead[];
  onSuite: (id: string) => void;
  knownTags: string[];
  onLaunched: (jobIds: number[]) => void;
  title: string;
  repo: RepoLaunch | undefined;
}) {
  const scenarios = Object.entries(suite.scenarios);
  const tryJob = repo !== undefined && "compare" in repo.target;
  // The suite's lightest scenario first: a new user's first launch should not be its longest.
  const [scenario, setScenario] = useState(
    suite.lightest_scenario ??
      (scenarios.some(([name]) => name === "default") ? "default" : (scenarios[0]?.[0] ?? "default")),
  );
  const fields = useMemo(() => paramFields(suite.params_schema), [suite.params_schema]);
  const defaults = useMemo(
    () => effectiveDefaults(fields, suite.scenarios[scenario]?.params ?? {}),
    [fields, suite.scenarios, scenario],
  );
  const [inputs, setInputs] = useState<ParamInputs>(() => ({
    ...initialInputs(fields, defaults),
    ...(repo === undefined ? {} : repoParamInputs(suite.params_schema)),
  }));
  const [tagsText, setTagsText] = useState("");
  const [allMatching, setAllMatching] = useState(false);
  const [profile, setProfile] = useState(false);
  const [repetitionsText, setRepetitionsText] = useState(
    String(repo?.repetitions ?? LAB_REPETITIONS),
  );
  const [timeoutText, setTimeoutText] = useState("");
  const [maxMinutesText, setMaxMinutesText] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formErrors, setFormErrors] = useState<string[]>([]);
  const create = useCreateJob();
  // The form checked: an error per field, or the request as it stands.
  function checked() {
    const check = checkParams(fields, inputs, defaults);
    const launch = checkLaunch({
      tags: tagsText,
      repetitions: repetitionsText,
      timeout: timeoutText,
    });
    // Only a try job has stages to cap.
    const maxMinutes = parseMaxMinutes(tryJob ? maxMinutesText : "");
    const unpicked = repo === undefined ? null : targetProblem(repo.target);
    const body: JobCreate | undefined =
      "errors" in launch ||
      "error" in maxMinutes ||
      Object.keys(check.errors).length > 0 ||
      unpicked !== null
        ? undefined
        : {
            suite: suite.id,
            scenario,
            params: check.params,
            all_matching: allMatching,
            profile,
            ...launch.fields,
            ...(repo === undefined ? {} : targetFields(repo.target, maxMinutes.value)),
          };
    const launchProblems: LaunchErrors = {
      ...("errors" in launch ? launch.errors : {}),
      ...("error" in maxMinutes ? { maxMinutes: maxMinutes.error } : {}),
    };
    return { paramErrors: check.errors, launchProblems, unpicked, body };
  }
  // Repetitions, timeout and cap are checked as they are typed: a value out of range says so
  // at once, holds the Launch button and shows no estimate (the last one would be stale).
  const live = checked();
  const launchErrors = live.launchProblems;
  const launchable = Object.keys(launchErrors).length === 0;
  // The API estimates the request as the form changes, once its fields check out.
  const draft = useDeferredValue(live.body, undefined);
  const estimate = useJobEstimate(draft);

  function changeScenario(name: string) {
    setScenario(name);
    // Checkboxes follow the new scenario's defaults; typed values stay.
    const next = effectiveDefaults(fields, suite.scenarios[name]?.params ?? {});
    setInputs((current) => {
      const updated = { ...current };
      for (const field of fields)
        if (field.kind === "boolean") updated[field.name] = next[field.name] === true;
      return updated;
    });
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const { paramErrors, unpicked, body } = checked();
    setErrors(paramErrors);
    setFormErrors(unpicked === null ? [] : [unpicked]);
    if (body === undefined) return;
    create.mutate(body, {
      onSuccess: (created) =>
        onLaunched(created.job_ids.length > 0 ? created.job_ids : [created.id]),
      onError: (error) => {
        const problems = refusal(error, problemsByField);
        setErrors(problems.fields);
        setFormErrors(problems.other);
      },
    });
  }

  return (
    <form className="panel launch-form" onSubmit={submit} noValidate aria-labelledby="launch-title">
      <h2 id="launch-title">{title}</h2>
      <div className="form-grid">
        {repo?.fields}
        <SelectField
          label="Suite"
          hint={suite.description}
          value={suite.id}
          options={suites.map((item) => item.id)}
          onChange={onSuite}
        />
        <SelectField
          label="Scenario"
          hint={suite.scenarios[scenario]?.description}
          value={scenario}
          options={scenarios.map(([name]) => name)}
          onChange={changeScenario}
        />
        <TextField
          label="Host tags"
          hint={
            knownTags.length > 0
              ? `Hosts have: ${knownTags.join(", ")}`
              : "Comma-separated; empty: any host"
          }
          error={launchErrors.tags}
          value={tagsText}
          placeholder="any host"
          onChange={setTagsText}
        />
        <TextField
          label="Repetitions"
          hint={
            tryJob
              ? "Trials of each commit in the first stage, interleaved, 1 – 100 (then as many " +
                "again, and twice as many again, while undecided); a try job's default is " +
                String(repo.repetitions)
              : `Trials in the run, 1 – 100; the lab's default is ${String(LAB_REPETITIONS)}`
          }
          error={launchErrors.repetitions}
          inputMode="numeric"
          value={repetitionsText}
          onChange={setRepetitionsText}
        />
        <TextField
          label="Timeout (s)"
          hint="10 – 21,600; blank: from the estimate"
          error={launchErrors.timeout}
          inputMode="numeric"
          value={timeoutText}
          placeholder={
            estimate.data === undefined ? "from the estimate" : String(estimate.data.timeout_s)
          }
          onChange={setTimeoutText}
        />
        {tryJob && (
          <TextField
            label="Cap (minutes)"
            hint="Lab time the job's stages may take, 1 – 360; blank: it stops at a decision or its last look"
            error={launchErrors.maxMinutes}
            inputMode="numeric"
            value={maxMinutesText}
            placeholder="no cap"
            onChange={setMaxMinutesText}
          />
        )}
        <CheckField
          label="On every matching host"
          hint="One job per online host with these tags"
          checked={allMatching}
          onChange={setAllMatching}
        />
        <CheckField
          label="Profile the CPU"
          hint="One more trial per series, its programs profiled; no statistic counts it"
          checked={profile}
          onChange={setProfile}
        />
      </div>
      {fields.length > 0 && (
        <fieldset className="params">
          <legend>Parameters of {suite.id}</legend>
          <p className="muted small">Blank fields keep the scenario&apos;s value, shown greyed.</p>
          <div className="form-grid">
            {fields.map((field) => (
              <ParamInput
                key={field.name}
                field={field}
                value={inputs[field.name] ?? ""}
                defaultValue={defaults[field.name]}
                error={errors[field.name]}
                onChange={(value) => setInputs((current) => ({ ...current, [field.name]: value }))}
              />
            ))}
          </div>
        </fieldset>
      )}
      <output className="muted small launch-estimate" aria-label="Estimate">
        {!launchable
          ? "No estimate until the fields marked above are fixed."
          : estimate.isError
            ? `Cannot run as it stands: ${errorMessage(estimate.error)}`
            : estimate.data === undefined || live.body === undefined
              ? "\u00a0"
              : describeEstimate(estimate.data)}
      </output>
      <FormErrors messages={formErrors} />
      <div className="form-actions">
        <button
          type="submit"
          className="button button-primary"
          disabled={create.isPending || !launchable}
        >
          {create.isPending ? "Launching…" : "Launch"}
        </button>
        {Object.keys(errors).length + Object.keys(launchErrors).length > 0 && (
          <span className="field-error" role="alert">
            Fix the fields marked above.
          </span>
        )}
      </div>
    </form>
  );
}
