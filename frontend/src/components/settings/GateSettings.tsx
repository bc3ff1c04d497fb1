import { useState } from "react";

import { useGateSettings, useUpdateGateSettings } from "../../api/analysis";
import { ApiError, errorMessage } from "../../api/client";
import type { GateSettingsRead } from "../../api/types";
import {
  EMPTY_GATE_RULE,
  checkGateRule,
  describeScope,
  effectiveDefault,
  gateRuleCells,
  gateRuleRows,
  gateRuleToForm,
  isEmptyGateRule,
  withGateRule,
  withoutGateRule,
  type GateRuleForm,
} from "../../lib/gateSettings";
import { ConfirmButton } from "../common/ConfirmButton";
import { Field } from "../common/Field";
import { ErrorState, Loading } from "../common/Status";
import { CreateForm } from "./CreateForm";
import { SettingsTable } from "./SettingsTable";

const COLUMNS = ["Applies to", "Window", "Test", "False alarms", "Minimum effect", "Percentage",
  "Errors allowed"];

/**
 * The CI gate's thresholds: the project's default, then rules per suite and per scenario; a
 * blank field keeps the level above's. Admins change them (later runs are judged by them),
 * everyone else reads them.
 */
export function GateSettings({ isAdmin }: { isAdmin: boolean }) {
  const settings = useGateSettings();
  if (settings.isPending) return <Loading label="Loading gate thresholds…" />;
  if (settings.isError) {
    return (
      <ErrorState message={errorMessage(settings.error)} onRetry={() => void settings.refetch()} />
    );
  }
  return <GateRules settings={settings.data} isAdmin={isAdmin} />;
}

function GateRules({ settings, isAdmin }: { settings: GateSettingsRead; isAdmin: boolean }) {
  const update = useUpdateGateSettings();
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<GateRuleForm>(EMPTY_GATE_RULE);
  // A new key refills the form when a row's Edit is pressed.
  const [formKey, setFormKey] = useState(0);
  const effective = gateRuleCells(effectiveDefault(settings));

  return (
    <>
      <p className="muted small">
        A CI run is judged against a window of its series&apos; history. A blank cell keeps the
        level above (the project default, then the suite&apos;s); the project default row shows
        what a run gets, the lab&apos;s default where the project sets nothing.
        {isAdmin ? "" : " Admins change them."}
      </p>
      <SettingsTable
        className="gate-table"
        columns={COLUMNS}
        actions={isAdmin}
        rows={gateRuleRows(settings)}
        error={error}
      >
        {({ scope, rule }) => {
          const cells = gateRuleCells(rule);
          // The project default's blanks show what the lab's default gives.
          const shown = (name: keyof typeof cells) =>
            cells[name] ??
            (scope === "" ? <span className="muted">{effective[name]}</span> : "—");
          const name = describeScope(scope);
          return (
            <tr key={scope || "(default)"} data-scope={scope || "default"}>
              <th scope="row">{name}</th>
              <td>{shown("window")}</td>
              <td>{shown("test")}</td>
              <td>{shown("falseAlarm")}</td>
              <td>{shown("minEffect")}</td>
              <td>{shown("percentage")}</td>
              <td>{shown("maxErrorRate")}</td>
              {isAdmin && (
                <td className="nowrap">
                  <button
                    type="button"
                    className="button button-small"
                    aria-label={`Edit the gate thresholds of ${name}`}
                    onClick={() => {
                      setEditing(gateRuleToForm(scope, rule));
                      setFormKey((key) => key + 1);
                    }}
                  >
                    Edit
                  </button>{" "}
                  {(scope !== "" || !isEmptyGateRule(rule)) && (
                    <ConfirmButton
                      label={scope === "" ? "Reset" : "Remove"}
                      accessibleName={`${scope === "" ? "Reset" : "Remove"} the gate thresholds of ${name}`}
                      disabled={update.isPending}
                      onConfirm={() => {
                        setError(null);
                        update.mutate(withoutGateRule(settings, scope), {
                          onError: (failure) =>
                            setError(`Could not change ${name}: ${errorMessage(failure)}`),
                        });
                      }}
                    />
                  )}
                </td>
              )}
            </tr>
          );
        }}
      </SettingsTable>
      {isAdmin && <GateRuleForm key={formKey} settings={settings} initial={editing} />}
    </>
  );
}

function GateRuleForm({
  settings,
  initial,
}: {
  settings: GateSettingsRead;
  initial: GateRuleForm;
}) {
  const update = useUpdateGateSettings();
  const [form, setForm] = useState<GateRuleForm>(initial);
  const [errors, setErrors] = useState<Partial<Record<keyof GateRuleForm, string>>>({});
  const [serverErrors, setServerErrors] = useState<string[]>([]);
  const [saved, setSaved] = useState<string | null>(null);

  function set<K extends keyof GateRuleForm>(name: K, value: GateRuleForm[K]) {
    setForm((current) => ({ ...current, [name]: value }));
  }

  function submit() {
    setServerErrors([]);
    setSaved(null);
    const checked = checkGateRule(form);
    if ("errors" in checked) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    update.mutate(withGateRule(settings, checked.scope, checked.rule), {
      onSuccess: () => setSaved(`Saved the thresholds of ${describeScope(checked.scope)}.`),
      onError: (error) =>
        setServerErrors([error instanceof ApiError ? error.message : errorMessage(error)]),
    });
  }

  return (
    <CreateForm
      id="gate-rule"
      title="Set gate thresholds"
      submitLabel="Save thresholds"
      pending={update.isPending}
      errors={serverErrors}
      done={saved}
      onSubmit={submit}
    >
      <Field
        label="Applies to"
        hint="Blank: the project default; a suite (http-order) or suite/scenario (http-order/large)"
        error={errors.scope}
      >
        {(control) => (
          <input
            {...control}
            value={form.scope}
            placeholder="project default"
            onChange={(event) => set("scope", event.target.value)}
          />
        )}
      </Field>
      <Field label="Window (runs)" hint="5 to 500; blank: as above" error={errors.window}>
        {(control) => (
          <input
            {...control}
            inputMode="numeric"
            value={form.window}
            onChange={(event) => set("window", event.target.value)}
          />
        )}
      </Field>
      <Field
        label="Test"
        hint="t: prediction test; z: normal quantiles; percentage: a fixed change"
      >
        {(control) => (
          <select
            {...control}
            value={form.test}
            onChange={(event) => set("test", event.target.value as GateRuleForm["test"])}
          >
            <option value="">as above</option>
            <option value="t">t</option>
            <option value="z">z</option>
            <option value="percentage">percentage</option>
          </select>
        )}
      </Field>
      <Field
        label="False alarms (%)"
        hint="The chance an unchanged run fails, over its gated metrics"
        error={errors.falseAlarm}
      >
        {(control) => (
          <input
            {...control}
            inputMode="decimal"
            value={form.falseAlarm}
            onChange={(event) => set("falseAlarm", event.target.value)}
          />
        )}
      </Field>
      <Field
        label="Minimum effect (%)"
        hint="Smaller changes never fail"
        error={errors.minEffect}
      >
        {(control) => (
          <input
            {...control}
            inputMode="decimal"
            value={form.minEffect}
            onChange={(event) => set("minEffect", event.target.value)}
          />
        )}
      </Field>
      <Field
        label="Percentage (%)"
        hint="With the percentage test: the change that fails"
        error={errors.percentage}
      >
        {(control) => (
          <input
            {...control}
            inputMode="decimal"
            value={form.percentage}
            onChange={(event) => set("percentage", event.target.value)}
          />
        )}
      </Field>
      <Field
        label="Errors allowed (%)"
        hint="The share of a series' operations its harness may count as failed before the run fails"
        error={errors.maxErrorRate}
      >
        {(control) => (
          <input
            {...control}
            inputMode="decimal"
            value={form.maxErrorRate}
            onChange={(event) => set("maxErrorRate", event.target.value)}
          />
        )}
      </Field>
    </CreateForm>
  );
}
