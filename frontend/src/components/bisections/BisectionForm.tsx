import { useState } from "react";

import { refusal } from "../../api/client";
import { useCreateBisection } from "../../api/bisections";
import { useSuites } from "../../api/hosts";
import { useRepositories } from "../../api/repos";
import type { BisectionRead } from "../../api/types";
import {
  bisectionProblems,
  checkBisection,
  EMPTY_FORM,
  suiteDefaults,
  type BisectionField,
  type BisectionText,
} from "../../lib/bisections";
import { Field } from "../common/Field";
import { CreateForm } from "../settings/CreateForm";

/**
 * "Find the commit": a repository's range (good, then bad), the suite's scenario and params
 * that measure its code, the series and metric that got worse, and an optional cap of lab
 * time. Checked here, then by the API (which resolves the refs), whose problems land on their
 * fields. The suite and scenario are chosen from what online hosts offer, or typed.
 */
export function BisectionForm({
  initial,
  onCreated,
}: {
  /** Fields to start from (a link may name the repository and range). */
  initial?: Partial<BisectionText>;
  onCreated: (bisection: BisectionRead, created: boolean) => void;
}) {
  const repositories = useRepositories();
  const suites = useSuites();
  const create = useCreateBisection();
  const [text, setText] = useState<BisectionText>({ ...EMPTY_FORM, ...initial });
  // The scenario and params follow the suite until typed ("" and null: the suite's).
  const [typedParams, setTypedParams] = useState<string | null>(initial?.params ?? null);
  const [errors, setErrors] = useState<Partial<Record<BisectionField, string>>>({});
  const [formErrors, setFormErrors] = useState<string[]>([]);

  const catalogue = suites.data ?? [];
  const suite = catalogue.find((item) => item.id === text.suite.trim());
  const defaults = suiteDefaults(suite);
  const repos = repositories.data ?? [];
  const repo = text.repo !== "" ? text.repo : (repos[0]?.name ?? "");
  const filled: BisectionText = {
    ...text,
    repo,
    scenario: text.scenario !== "" ? text.scenario : defaults.scenario,
    params: typedParams ?? defaults.params,
  };

  function change(name: BisectionField, value: string) {
    setText((current) => ({ ...current, [name]: value }));
  }

  function changeSuite(value: string) {
    setText((current) => ({ ...current, suite: value, scenario: "" }));
    setTypedParams(null);
  }

  function submit() {
    setFormErrors([]);
    const checked = checkBisection(filled);
    if ("errors" in checked) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    create.mutate(checked.body, {
      onSuccess: ({ bisection, created }) => onCreated(bisection, created),
      onError: (error) => {
        const problems = refusal(error, bisectionProblems);
        setErrors(problems.fields);
        setFormErrors(problems.other);
      },
    });
  }

  return (
    <CreateForm
      id="new-bisection"
      title="Find the commit"
      submitLabel={create.isPending ? "Starting…" : "Start the bisection"}
      pending={create.isPending}
      errors={formErrors}
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
          repositories.isSuccess && repos.length === 0
            ? "None registered: register one on the Repositories page"
            : undefined
        }
        error={errors.repo}
      >
        {(control) => (
          <select
            {...control}
            value={repo}
            onChange={(event) => change("repo", event.target.value)}
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
      <Field label="Good" hint="A commit, branch or tag without the regression" error={errors.good}>
        {(control) => (
          <input
            {...control}
            value={text.good}
            placeholder="v1.0"
            spellCheck={false}
            onChange={(event) => change("good", event.target.value)}
          />
        )}
      </Field>
      <Field
        label="Bad"
        hint="A later one with it; good must be on its first-parent history"
        error={errors.bad}
      >
        {(control) => (
          <input
            {...control}
            value={text.bad}
            placeholder="main"
            spellCheck={false}
            onChange={(event) => change("bad", event.target.value)}
          />
        )}
      </Field>
      <Field
        label="Suite"
        hint={catalogue.length > 0 ? suite?.description : "No online host offers a suite now"}
        error={errors.suite}
      >
        {(control) =>
          catalogue.length > 0 ? (
            <select
              {...control}
              value={text.suite}
              onChange={(event) => changeSuite(event.target.value)}
            >
              {suite === undefined && <option value={text.suite}>{text.suite}</option>}
              {catalogue.map((item) => (
                <option key={item.id} value={item.id}>
                  {item.id}
                </option>
              ))}
            </select>
          ) : (
            <input
              {...control}
              value={text.suite}
              spellCheck={false}
              onChange={(event) => changeSuite(event.target.value)}
            />
          )
        }
      </Field>
      <Field
        label="Scenario"
        hint={suite?.scenarios[filled.scenario]?.description}
        error={errors.scenario}
      >
        {(control) =>
          suite !== undefined ? (
            <select
              {...control}
              value={filled.scenario}
              onChange={(event) => change("scenario", event.target.value)}
            >
              {Object.keys(suite.scenarios).map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          ) : (
            <input
              {...control}
              value={filled.scenario}
              spellCheck={false}
              onChange={(event) => change("scenario", event.target.value)}
            />
          )
        }
      </Field>
      <Field label="Metric" hint="The gate metric that got worse" error={errors.metric}>
        {(control) => (
          <input
            {...control}
            value={text.metric}
            spellCheck={false}
            onChange={(event) => change("metric", event.target.value)}
          />
        )}
      </Field>
      <Field
        label="Series"
        hint="Its labels, key=value, comma-separated; blank: any series of the run"
        error={errors.series}
      >
        {(control) => (
          <input
            {...control}
            value={text.series}
            placeholder="client=go"
            spellCheck={false}
            onChange={(event) => change("series", event.target.value)}
          />
        )}
      </Field>
      <Field
        label="Params"
        hint="The suite's params as a JSON object; server=repo measures the repository's code"
        error={errors.params}
      >
        {(control) => (
          <textarea
            {...control}
            className="mono"
            rows={2}
            value={filled.params}
            placeholder="{}"
            spellCheck={false}
            onChange={(event) => setTypedParams(event.target.value)}
          />
        )}
      </Field>
      <Field
        label="Cap (minutes)"
        hint="Lab time all steps may take; reaching it ends on the narrowest range. Blank: none"
        error={errors.maxMinutes}
      >
        {(control) => (
          <input
            {...control}
            inputMode="numeric"
            value={text.maxMinutes}
            placeholder="no cap"
            onChange={(event) => change("maxMinutes", event.target.value)}
          />
        )}
      </Field>
    </CreateForm>
  );
}
