import { useUpdateGateSettings } from "../../api/analysis";
import type { GateSettingsRead } from "../../api/types";
import { useForm } from "../../hooks/useForm";
import {
  checkGateRule,
  describeScope,
  withGateRule,
  type GateRuleForm as GateRuleText,
} from "../../lib/gateSettings";
import { SelectField, TextField } from "../common/Field";
import { FormPanel } from "../common/FormPanel";

/** The thresholds given in %, a field each. */
const PERCENT_FIELDS = [
  {
    name: "falseAlarm",
    label: "False alarms (%)",
    hint: "The chance an unchanged run fails, over its gated metrics",
  },
  { name: "minEffect", label: "Minimum effect (%)", hint: "Smaller changes never fail" },
  {
    name: "percentage",
    label: "Percentage (%)",
    hint: "With the percentage test: the change that fails",
  },
  {
    name: "maxErrorRate",
    label: "Errors allowed (%)",
    hint: "The share of a series' operations its harness may count as failed before the run fails",
  },
] as const;

/** Sets the thresholds of one level (the project default, a suite, a scenario), starting from
 * `initial` (a row's Edit fills it); blank fields keep the level above's. */
export function GateRuleForm({
  settings,
  initial,
}: {
  settings: GateSettingsRead;
  initial: GateRuleText;
}) {
  const update = useUpdateGateSettings();
  const form = useForm<GateRuleText>(initial);
  const { field } = form;

  function submit() {
    const checked = checkGateRule(form.text);
    form.start("errors" in checked ? checked.errors : {});
    if ("errors" in checked) return;
    update.mutate(withGateRule(settings, checked.scope, checked.rule), {
      onSuccess: () => form.finish(`Saved the thresholds of ${describeScope(checked.scope)}.`),
      onError: (error) => form.failed(error),
    });
  }

  return (
    <FormPanel
      id="gate-rule"
      title="Set gate thresholds"
      submitLabel="Save thresholds"
      pending={update.isPending}
      errors={form.other}
      done={form.done}
      onSubmit={submit}
    >
      <TextField
        label="Applies to"
        hint="Blank: the project default; a suite (http-order) or suite/scenario (http-order/large)"
        placeholder="project default"
        {...field("scope")}
      />
      <TextField
        label="Window (runs)"
        hint="5 to 500; blank: as above"
        inputMode="numeric"
        {...field("window")}
      />
      <SelectField
        label="Test"
        hint="t: prediction test; z: normal quantiles; percentage: a fixed change"
        blank="as above"
        options={["t", "z", "percentage"]}
        {...field("test")}
      />
      {PERCENT_FIELDS.map(({ name, label, hint }) => (
        <TextField key={name} label={label} hint={hint} inputMode="decimal" {...field(name)} />
      ))}
    </FormPanel>
  );
}
