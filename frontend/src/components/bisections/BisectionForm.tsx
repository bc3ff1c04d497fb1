import { useState } from "react";

import { useCreateBisection } from "../../api/bisections";
import type { BisectionRead, RepositoryRead, SuiteRead } from "../../api/types";
import { useForm } from "../../hooks/useForm";
import {
  bisectionProblems,
  checkBisection,
  EMPTY_FORM,
  suiteDefaults,
  type BisectionText,
} from "../../lib/bisections";
import { Field, SelectField, TextField } from "../common/Field";
import { FormPanel } from "../common/FormPanel";

/**
 * "Find the commit": a repository's range (good, then bad), the suite's scenario and params
 * that measure its code, the series and metric that got worse, and an optional cap of lab
 * time. Checked here, then by the API (which resolves the refs), whose problems land on their
 * fields. The suite and scenario are chosen from what online hosts offer, or typed.
 */
export function BisectionForm({
  repositories,
  catalogue,
  initial,
  onCreated,
}: {
  /** The project's repositories, once read. */
  repositories: RepositoryRead[] | undefined;
  /** The suites online hosts offer. */
  catalogue: SuiteRead[];
  /** Fields to start from (a link may name the repository and range). */
  initial?: Partial<BisectionText>;
  onCreated: (bisection: BisectionRead, created: boolean) => void;
}) {
  const create = useCreateBisection();
  const form = useForm<BisectionText>({ ...EMPTY_FORM, ...initial });
  const { text, errors, field } = form;
  // The scenario and params follow the suite until typed ("" and null: the suite's).
  const [typedParams, setTypedParams] = useState<string | null>(initial?.params ?? null);

  const suite = catalogue.find((item) => item.id === text.suite.trim());
  const defaults = suiteDefaults(suite);
  const repos = repositories ?? [];
  const repo = text.repo !== "" ? text.repo : (repos[0]?.name ?? "");
  const filled: BisectionText = {
    ...text,
    repo,
    scenario: text.scenario !== "" ? text.scenario : defaults.scenario,
    params: typedParams ?? defaults.params,
  };

  function changeSuite(value: string) {
    form.setText((current) => ({ ...current, suite: value, scenario: "" }));
    setTypedParams(null);
  }

  function submit() {
    const checked = checkBisection(filled);
    form.start("errors" in checked ? checked.errors : {});
    if ("errors" in checked) return;
    create.mutate(checked.body, {
      onSuccess: ({ bisection, created }) => onCreated(bisection, created),
      onError: (error) => form.failed(error, bisectionProblems),
    });
  }

  return (
    <FormPanel
      id="new-bisection"
      title="Find the commit"
      submitLabel={create.isPending ? "Starting…" : "Start the bisection"}
      pending={create.isPending}
      errors={form.other}
      onSubmit={submit}
      before={
        <p className="muted small">
          Each step is a try job on one host: good against bad first, then halving the commits
          between, until the one that made the metric worse is measured beside its parent.
        </p>
      }
    >
      <Field
        label="Repository"
        hint={
          repositories !== undefined && repos.length === 0
            ? "None registered: register one on the Repositories page"
            : undefined
        }
        error={errors.repo}
      >
        {(control) => (
          <select
            {...control}
            value={repo}
            onChange={(event) => form.set("repo")(event.target.value)}
          >
            {repos.length === 0 && <option value="">(none)</option>}
            {text.repo !== "" && !repos.some((item) => item.name === text.repo) && (
              <option value={text.repo}>{text.repo}</option>
            )}
            {repos.map((item) => (
              <option key={item.id} value={item.name}>
                {item.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <TextField
        label="Good"
        hint="A commit, branch or tag without the regression"
        placeholder="v1.0"
        spellCheck={false}
        {...field("good")}
      />
      <TextField
        label="Bad"
        hint="A later one with it; good must be on its first-parent history"
        placeholder="main"
        spellCheck={false}
        {...field("bad")}
      />
      {catalogue.length > 0 ? (
        <SelectField
          label="Suite"
          hint={suite?.description}
          error={errors.suite}
          value={text.suite}
          options={[
            ...(suite === undefined ? [text.suite] : []),
            ...catalogue.map((item) => item.id),
          ]}
          onChange={changeSuite}
        />
      ) : (
        <TextField
          label="Suite"
          hint="No online host offers a suite now"
          error={errors.suite}
          value={text.suite}
          spellCheck={false}
          onChange={changeSuite}
        />
      )}
      {suite !== undefined ? (
        <SelectField
          label="Scenario"
          hint={suite.scenarios[filled.scenario]?.description}
          error={errors.scenario}
          value={filled.scenario}
          options={Object.keys(suite.scenarios)}
          onChange={form.set("scenario")}
        />
      ) : (
        <TextField
          label="Scenario"
          error={errors.scenario}
          value={filled.scenario}
          spellCheck={false}
          onChange={form.set("scenario")}
        />
      )}
      <TextField
        label="Metric"
        hint="The gate metric that got worse"
        spellCheck={false}
        {...field("metric")}
      />
      <TextField
        label="Series"
        hint="Its labels, key=value, comma-separated; blank: any series of the run"
        placeholder="client=go"
        spellCheck={false}
        {...field("series")}
      />
      <TextField
        label="Params"
        hint="The suite's params as a JSON object; server=repo measures the repository's code"
        error={errors.params}
        className="mono"
        rows={2}
        value={filled.params}
        placeholder="{}"
        spellCheck={false}
        onChange={setTypedParams}
      />
      <TextField
        label="Cap (minutes)"
        hint="Lab time all steps may take; reaching it ends on the narrowest range. Blank: none"
        inputMode="numeric"
        placeholder="no cap"
        {...field("maxMinutes")}
      />
    </FormPanel>
  );
}
