import { useState } from "react";

import { useCreateRule, useDeleteRule, useUpdateRule } from "../../api/alerts";
import { errorMessage } from "../../api/client";
import type { QueryState } from "../../api/hooks";
import type { ChannelRead, SlaRuleCreate, SlaRuleRead } from "../../api/types";
import { useForm } from "../../hooks/useForm";
import { EMPTY_RULE, checkRule, formatSelector, ruleToForm, type RuleForm } from "../../lib/rules";
import { describeRule } from "../../lib/trends";
import { Badge } from "../common/Badge";
import { ConfirmButton } from "../common/ConfirmButton";
import { SelectField, TextField } from "../common/Field";
import { FormPanel } from "../common/FormPanel";
import { EmptyState } from "../common/Status";
import { SettingsTable } from "./SettingsTable";

/** How a rule compares a value with its threshold. */
const OPERATORS = [
  { value: "<", text: "<" },
  { value: "<=", text: "≤" },
  { value: ">", text: ">" },
  { value: ">=", text: "≥" },
];

/** The project's SLA rules (members turn them on and off, delete them, and add one). */
export function SlaRules({
  rules,
  templates,
  canWrite,
  channels,
}: {
  rules: QueryState<SlaRuleRead[]>;
  /** Rules to start from, read for writers only. */
  templates: QueryState<SlaRuleCreate[]>;
  canWrite: boolean;
  channels: ChannelRead[];
}) {
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
      {canWrite && <RuleCreateForm templates={templates} channels={channels} />}
    </>
  );
}

function RuleCreateForm({
  templates,
  channels,
}: {
  templates: QueryState<SlaRuleCreate[]>;
  channels: ChannelRead[];
}) {
  const create = useCreateRule();
  const form = useForm<RuleForm>(EMPTY_RULE);
  const { text, set, field } = form;

  function submit() {
    const checked = checkRule(text);
    form.start("errors" in checked ? checked.errors : {});
    if ("errors" in checked) return;
    create.mutate(checked.rule, {
      onSuccess: (rule) => form.finish(`Rule "${rule.name}" created.`, EMPTY_RULE),
      onError: (error) => form.failed(error),
    });
  }

  return (
    <FormPanel
      id="new-rule"
      title="New SLA rule"
      submitLabel="Create rule"
      pending={create.isPending}
      errors={form.other}
      done={form.done}
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
                  form.setText(ruleToForm(template));
                  form.setErrors({});
                }
              }}
            >
              <option value="">{templates.error ? "templates unavailable" : "choose…"}</option>
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
                  checked={text.channelIds.includes(channel.id)}
                  onChange={(event) =>
                    set("channelIds")(
                      event.target.checked
                        ? [...text.channelIds, channel.id]
                        : text.channelIds.filter((id) => id !== channel.id),
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
      <TextField label="Name" {...field("name")} />
      <TextField label="Suite" {...field("suite")} />
      <TextField label="Scenario" hint="Blank: every scenario" {...field("scenario")} />
      <TextField
        label="Series"
        hint="label=value, …; blank: every series"
        placeholder="client=rust"
        {...field("selector")}
      />
      <SelectField
        label="Kind"
        hint={
          text.kind === "relative"
            ? "Relative: the change against the baseline, in %"
            : "Static: a fixed threshold, in the unit below"
        }
        options={["static", "relative"]}
        {...field("kind")}
      />
      <TextField
        label="Metric"
        hint="p50 … p9999, throughput, success_rate, …"
        {...field("metric")}
      />
      <SelectField label="Breach when the value is" options={OPERATORS} {...field("op")} />
      <TextField label="Threshold" inputMode="decimal" {...field("threshold")} />
      <TextField label="Unit" hint="ns, µs, ms, s for latency; % for ratios" {...field("unit")} />
      <SelectField label="Severity" options={["warning", "critical"]} {...field("severity")} />
    </FormPanel>
  );
}
