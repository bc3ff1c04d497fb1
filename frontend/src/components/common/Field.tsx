import { useId, type ReactElement, type ReactNode } from "react";

import { Options, type Option } from "./Select";

/**
 * A labelled form control with its hint and error, wired for assistive technology. The child
 * is rendered by a function that receives the id and aria props to spread on the control.
 */
export function Field({
  label,
  hint,
  error,
  children,
}: {
  label: ReactNode;
  hint?: ReactNode;
  error?: string;
  children: (control: {
    id: string;
    "aria-describedby"?: string;
    "aria-invalid"?: boolean;
  }) => ReactElement;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(" ");
  return (
    <div className={`field${error ? " field-invalid" : ""}`}>
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        ...(describedBy ? { "aria-describedby": describedBy } : {}),
        ...(error ? { "aria-invalid": true } : {}),
      })}
      {hint && (
        <span id={hintId} className="field-hint">
          {hint}
        </span>
      )}
      {error && (
        <span id={errorId} className="field-error">
          {error}
        </span>
      )}
    </div>
  );
}

/** A form's errors from the server or from a check, above its submit button. */
export function FormErrors({ messages }: { messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <div className="form-error" role="alert">
      {messages.length === 1 ? (
        messages[0]
      ) : (
        <ul>
          {messages.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** What a text control of a Field takes: its value, what typing sets, and its input's own
 * attributes (given in the order they are written). */
interface TextControl {
  value: string;
  onChange: (value: string) => void;
  type?: string;
  inputMode?: "numeric" | "decimal";
  placeholder?: string;
  spellCheck?: boolean;
  autoComplete?: string;
  maxLength?: number;
  step?: number;
  className?: string;
  /** A textarea of this many lines, instead of a one-line input. */
  rows?: number;
}

/** A Field whose control is a text input (or, with `rows`, a textarea). */
export function TextField({
  label,
  hint,
  error,
  value,
  onChange,
  rows,
  ...attributes
}: { label: ReactNode; hint?: ReactNode; error?: string } & TextControl) {
  return (
    <Field label={label} hint={hint} error={error}>
      {(control) =>
        rows === undefined ? (
          <input
            {...control}
            {...attributes}
            value={value}
            onChange={(event) => onChange(event.target.value)}
          />
        ) : (
          <textarea
            {...control}
            {...attributes}
            rows={rows}
            value={value}
            onChange={(event) => onChange(event.target.value)}
          />
        )
      }
    </Field>
  );
}

/** A Field whose control is a choice among `options`. */
export function SelectField<Value extends string>({
  label,
  hint,
  error,
  value,
  options,
  blank,
  onChange,
}: {
  label: ReactNode;
  hint?: ReactNode;
  error?: string;
  value: Value;
  options: readonly Option[];
  blank?: string;
  onChange: (value: Value) => void;
}) {
  return (
    <Field label={label} hint={hint} error={error}>
      {(control) => (
        <select
          {...control}
          value={value}
          onChange={(event) => onChange(event.target.value as Value)}
        >
          <Options options={options} blank={blank} />
        </select>
      )}
    </Field>
  );
}

/** A checkbox in a form's grid, its hint under it. */
export function CheckField({
  label,
  hint,
  checked,
  onChange,
}: {
  label: ReactNode;
  hint: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <div className="field field-check">
      <label>
        <input
          type="checkbox"
          checked={checked}
          onChange={(event) => onChange(event.target.checked)}
        />{" "}
        {label}
      </label>
      <span className="field-hint">{hint}</span>
    </div>
  );
}
