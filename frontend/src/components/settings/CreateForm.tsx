import type { FormEvent, ReactNode } from "react";

import { FormErrors } from "../common/Field";

/**
 * A settings panel that creates one thing: its heading (which names the form), its fields in a
 * grid, the server's errors, the submit button and what was made. The caller checks the fields
 * (the browser's own checks are off, so its messages show in their place) and sends them.
 */
export function CreateForm({
  id,
  title,
  submitLabel,
  pending,
  errors,
  done,
  onSubmit,
  before,
  after,
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
        {done && (
          <span className="text-good" role="status">
            {done}
          </span>
        )}
      </div>
    </form>
  );
}
