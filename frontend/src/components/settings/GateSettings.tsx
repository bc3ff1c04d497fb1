import { useState } from "react";

import { useUpdateGateSettings } from "../../api/analysis";
import { errorMessage } from "../../api/client";
import type { GateSettingsRead } from "../../api/types";
import {
  EMPTY_GATE_RULE,
  gateRuleToForm,
  gateTable,
  withoutGateRule,
  type GateRuleForm as GateRuleText,
} from "../../lib/gateSettings";
import { ConfirmButton } from "../common/ConfirmButton";
import { GateRuleForm } from "./GateRuleForm";
import { SettingsTable } from "./SettingsTable";

const COLUMNS = ["Applies to", "Window", "Test", "False alarms", "Minimum effect", "Percentage",
  "Errors allowed"];

/**
 * The CI gate's thresholds: the project's default, then rules per suite and per scenario; a
 * blank field keeps the level above's. Admins change them (later runs are judged by them),
 * everyone else reads them.
 */
export function GateSettings({
  settings,
  isAdmin,
}: {
  settings: GateSettingsRead;
  isAdmin: boolean;
}) {
  const update = useUpdateGateSettings();
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<GateRuleText>(EMPTY_GATE_RULE);
  // A new key refills the form when a row's Edit is pressed.
  const [formKey, setFormKey] = useState(0);

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
        rows={gateTable(settings)}
        error={error}
      >
        {({ scope, rule, name, cells, removable }) => (
          <tr key={scope || "(default)"} data-scope={scope || "default"}>
            <th scope="row">{name}</th>
            {cells.map((cell, index) => (
              <td key={COLUMNS[index + 1]}>
                {cell.inherited ? <span className="muted">{cell.text}</span> : cell.text}
              </td>
            ))}
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
                {removable && (
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
        )}
      </SettingsTable>
      {isAdmin && <GateRuleForm key={formKey} settings={settings} initial={editing} />}
    </>
  );
}
