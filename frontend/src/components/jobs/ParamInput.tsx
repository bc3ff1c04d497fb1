import type { ParamField } from "../../lib/params";
import { defaultPlaceholder, describeConstraints } from "../../lib/params";
import { Field } from "../common/Field";

/** One parameter of a suite, as the input its schema calls for; blank means the default. */
export function ParamInput({
  field,
  value,
  defaultValue,
  error,
  onChange,
}: {
  field: ParamField;
  value: string | boolean;
  defaultValue: unknown;
  error?: string;
  onChange: (value: string | boolean) => void;
}) {
  const hint = [field.description, describeConstraints(field)].filter(Boolean).join(" — ");
  if (field.kind === "boolean") {
    return (
      <div className={`field field-check${error ? " field-invalid" : ""}`}>
        <label>
          <input
            type="checkbox"
            name={field.name}
            checked={value === true}
            onChange={(event) => onChange(event.target.checked)}
          />{" "}
          <span className="mono">{field.name}</span>
        </label>
        {field.description && <span className="field-hint">{field.description}</span>}
        {error && <span className="field-error">{error}</span>}
      </div>
    );
  }
  const placeholder = defaultPlaceholder(field, defaultValue);
  return (
    <Field label={<span className="mono">{field.name}</span>} hint={hint} error={error}>
      {(control) =>
        field.kind === "enum" ? (
          <select
            {...control}
            name={field.name}
            value={String(value)}
            onChange={(event) => onChange(event.target.value)}
          >
            <option value="">{placeholder || "default"}</option>
            {field.options?.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        ) : (
          <input
            {...control}
            name={field.name}
            // Numbers are typed as text and checked by the schema, so a bad value gets a message
            // instead of being silently dropped by the browser.
            type="text"
            inputMode={
              field.kind === "integer" ? "numeric" : field.kind === "number" ? "decimal" : undefined
            }
            placeholder={placeholder}
            value={String(value)}
            onChange={(event) => onChange(event.target.value)}
          />
        )
      }
    </Field>
  );
}
