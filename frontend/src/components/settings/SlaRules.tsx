import { useState } from "react";

import {
  useCreateRule,
  useDeleteRule,
  useRuleTemplates,
  useRules,
  useUpdateRule,
} from "../../api/alerts";
import { ApiError, errorMessage } from "../../api/client";
import type { ChannelRead } from "../../api/types";
import { EMPTY_RULE, checkRule, formatSelector, ruleToForm, type RuleForm } from "../../lib/rules";
import { describeRule } from "../../lib/trends";
import { Badge } from "../common/Badge";
import { ConfirmButton } from "../common/ConfirmButton";
import { Field } from "../common/Field";
import { EmptyState } from "../common/Status";
import { CreateForm } from "./CreateForm";
import { SettingsTable } from "./SettingsTable";

export function SlaRules({ canWrite, channels }: { canWrite: boolean; channels: ChannelRead[] }) {
  const rules = useRules();
  const update = useUpdateRule();
  const remove = useDeleteRule();
  const [error, setError] = useState<string | null>(null);
  const onError = (what: string) => (failure: Error) =>
    setError(`${what}: ${errorMessage(failure)}`);

  return (
    <>
      <SettingsTable
        className="rules-table"
        columns={["Name", "Applies to", "Rule", "Severity", "State"]}
        actions
        rows={rules}
        loading="Loading SLA rules…"
        empty={
          <EmptyState title="No SLA rules">
            {canWrite ? "Add one below, from a template or by hand." : "Members add rules here."}
          </EmptyState>
        }
        error={error}
      >
        {(rule) => (
          <tr key={rule.id} data-rule-id={rule.id}>
            <th scope="row">{rule.name}</th>
            <td>
              {rule.suite}
              {rule.scenario ? ` / ${rule.scenario}` : " (every scenario)"}
              {Object.keys(rule.series_selector).length > 0 && (
                <div className="small muted">{formatSelector(rule.series_selector)}</div>
              )}
            </td>
            <td className="mono">{describeRule(rule)}</td>
            <td>
              <Badge tone={rule.severity === "critical" ? "bad" : "unknown"}>{rule.severity}</Badge>
            </td>
            <td>
              {canWrite ? (
                <label className="nowrap">
                  <input
                    type="checkbox"
                    checked={rule.enabled}
                    disabled={update.isPending}
                    onChange={(event) =>
                      update.mutate(
                        { ruleId: rule.id, enabled: event.target.checked },
                        { onError: onError(`Could not change "${rule.name}"`) },
                      )
                    }
                  />{" "}
                  enabled
                </label>
              ) : rule.enabled ? (
                "enabled"
              ) : (
                "disabled"
              )}
            </td>
            <td>
              {canWrite && (
                <ConfirmButton
                  label="Delete"
                  accessibleName={`Delete rule ${rule.name}`}
                  onConfirm={() =>
                    remove.mutate(rule.id, {
                      onError: onError(`Could not delete "${rule.name}"`),
                    })
                  }
                />
              )}
            </td>
          </tr>
        )}
      </SettingsTable>
      {canWrite && <RuleCreateForm channels={channels} />}
    </>
  );
}

function RuleCreateForm({ channels }: { channels: ChannelRead[] }) {
  const templates = useRuleTemplates();
  const create = useCreateRule();
  const [form, setForm] = useState<RuleForm>(EMPTY_RULE);
  const [errors, setErrors] = useState<Partial<Record<keyof RuleForm, string>>>({});
  const [serverErrors, setServerErrors] = useState<string[]>([]);
  const [created, setCreated] = useState<string | null>(null);

  function set<K extends keyof RuleForm>(name: K, value: RuleForm[K]) {
    setForm((current) => ({ ...current, [name]: value }));
  }

  function submit() {
    setServerErrors([]);
    setCreated(null);
    const checked = checkRule(form);
    if ("errors" in checked) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    create.mutate(checked.rule, {
      onSuccess: (rule) => {
        setCreated(`Rule "${rule.name}" created.`);
        setForm(EMPTY_RULE);
      },
      onError: (error) =>
        setServerErrors([error instanceof ApiError ? error.message : errorMessage(error)]),
    });
  }

  return (
    <CreateForm
      id="new-rule"
      title="New SLA rule"
      submitLabel="Create rule"
      pending={create.isPending}
      errors={serverErrors}
      done={created}
      onSubmit={submit}
      before={
        <div className="toolbar">
          <label>
            Start from a template{" "}
            <select
              value=""
              disabled={!templates.data}
              onChange={(event) => {
                const template = templates.data?.[Number(event.target.value)];
                if (template) {
                  setForm(ruleToForm(template));
                  setErrors({});
                }
              }}
            >
              <option value="">{templates.isError ? "templates unavailable" : "choose…"}</option>
              {templates.data?.map((template, index) => (
                <option key={template.name} value={index}>
                  {template.suite}: {template.name}
                </option>
              ))}
            </select>
          </label>
        </div>
      }
      after={
        channels.length > 0 && (
          <fieldset className="checks">
            <legend>Channels (none ticked: every channel)</legend>
            {channels.map((channel) => (
              <label key={channel.id}>
                <input
                  type="checkbox"
                  checked={form.channelIds.includes(channel.id)}
                  onChange={(event) =>
                    set(
                      "channelIds",
                      event.target.checked
                        ? [...form.channelIds, channel.id]
                        : form.channelIds.filter((id) => id !== channel.id),
                    )
                  }
                />{" "}
                {channel.name}
              </label>
            ))}
          </fieldset>
        )
      }
    >
      <Field label="Name" error={errors.name}>
        {(control) => (
          <input
            {...control}
            value={form.name}
            onChange={(event) => set("name", event.target.value)}
          />
        )}
      </Field>
      <Field label="Suite" error={errors.suite}>
        {(control) => (
          <input
            {...control}
            value={form.suite}
            onChange={(event) => set("suite", event.target.value)}
          />
        )}
      </Field>
      <Field label="Scenario" hint="Blank: every scenario" error={errors.scenario}>
        {(control) => (
          <input
            {...control}
            value={form.scenario}
            onChange={(event) => set("scenario", event.target.value)}
          />
        )}
      </Field>
      <Field label="Series" hint="label=value, …; blank: every series" error={errors.selector}>
        {(control) => (
          <input
            {...control}
            value={form.selector}
            placeholder="client=rust"
            onChange={(event) => set("selector", event.target.value)}
          />
        )}
      </Field>
      <Field
        label="Kind"
        hint={
          form.kind === "relative"
            ? "Relative: the change against the baseline, in %"
            : "Static: a fixed threshold, in the unit below"
        }
      >
        {(control) => (
          <select
            {...control}
            value={form.kind}
            onChange={(event) => set("kind", event.target.value as RuleForm["kind"])}
          >
            <option value="static">static</option>
            <option value="relative">relative</option>
          </select>
        )}
      </Field>
      <Field label="Metric" hint="p50 … p9999, throughput, success_rate, …" error={errors.metric}>
        {(control) => (
          <input
            {...control}
            value={form.metric}
            onChange={(event) => set("metric", event.target.value)}
          />
        )}
      </Field>
      <Field label="Breach when the value is">
        {(control) => (
          <select
            {...control}
            value={form.op}
            onChange={(event) => set("op", event.target.value as RuleForm["op"])}
          >
            <option value="<">&lt;</option>
            <option value="<=">≤</option>
            <option value=">">&gt;</option>
            <option value=">=">≥</option>
          </select>
        )}
      </Field>
      <Field label="Threshold" error={errors.threshold}>
        {(control) => (
          <input
            {...control}
            inputMode="decimal"
            value={form.threshold}
            onChange={(event) => set("threshold", event.target.value)}
          />
        )}
      </Field>
      <Field label="Unit" hint="ns, µs, ms, s for latency; % for ratios" error={errors.unit}>
        {(control) => (
          <input
            {...control}
            value={form.unit}
            onChange={(event) => set("unit", event.target.value)}
          />
        )}
      </Field>
      <Field label="Severity">
        {(control) => (
          <select
            {...control}
            value={form.severity}
            onChange={(event) => set("severity", event.target.value as RuleForm["severity"])}
          >
            <option value="warning">warning</option>
            <option value="critical">critical</option>
          </select>
        )}
      </Field>
    </CreateForm>
  );
}
