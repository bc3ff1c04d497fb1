import type { FormEvent, ReactNode } from "react";

import { FormErrors } from "./Field";

/**
 * A form in a panel that makes or changes one thing: its heading (which names the form), its
 * fields in a grid, the server's errors, the submit button (other `actions` beside it) and what
 * was done. The caller checks the fields (the browser's own checks are off, so its messages
 * show in their place) and sends them.
 */
export function FormPanel({
  id,
  title,
  submitLabel,
  pending,
  errors,
  done,
  onSubmit,
  before,
  after,
  actions,
  children: fields,
}: {
  /** The heading's id, e.g. "new-user". */
  id: string;
  title: string;
  submitLabel: string;
  pending: boolean;
  errors: string[];
  /** Said once the thing is made. */
  done?: string | null;
  onSubmit: () => void;
  /** Above the fields: a template to start from. */
  before?: ReactNode;
  /** Below the fields: groups of checkboxes. */
  after?: ReactNode;
  /** Buttons beside the submit button. */
  actions?: ReactNode;
  children: ReactNode;
}) {
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onSubmit();
  }

  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {before}
      <div className="form-grid">{fields}</div>
      {after}
      <FormErrors messages={errors} />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={pending}>
          {submitLabel}
        </button>
        {actions}
        {done && (
          <span className="text-good" role="status">
            {done}
          </span>
        )}
      </div>
    </form>
  );
}
