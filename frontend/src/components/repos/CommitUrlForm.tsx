import { useState, type FormEvent } from "react";

import { refusal } from "../../api/client";
import { useUpdateRepository } from "../../api/repos";
import type { RepositoryRead } from "../../api/types";
import { COMMIT_URL_EXAMPLE, commitUrlProblem, registrationProblems } from "../../lib/repos";
import { Field, FormErrors } from "../common/Field";

/**
 * A repository's commit URL changed or removed (members): where the dashboard links its
 * commits, `{sha}` standing for a commit's sha. Checked as typed before it is sent; the API's
 * refusal shows on the field.
 */
export function CommitUrlForm({ repo }: { repo: RepositoryRead }) {
  const update = useUpdateRepository(repo.name);
  const [text, setText] = useState(repo.commit_url ?? "");
  const [error, setError] = useState<string | undefined>(undefined);
  const [formErrors, setFormErrors] = useState<string[]>([]);
  const [done, setDone] = useState<string | null>(null);

  function send(commitUrl: string | null) {
    setDone(null);
    setFormErrors([]);
    setError(undefined);
    update.mutate(
      { commit_url: commitUrl, forget_secret: false },
      {
        onSuccess: (changed) => {
          setText(changed.commit_url ?? "");
          setDone(changed.commit_url ? "Commit URL saved." : "Commit URL removed.");
        },
        onError: (failure) => {
          const problems = refusal(failure, registrationProblems);
          setError(problems.fields.commit_url);
          setFormErrors(problems.other);
        },
      },
    );
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const problem = commitUrlProblem(text);
    if (problem !== null) {
      setError(problem);
      return;
    }
    send(text.trim() === "" ? null : text.trim());
  }

  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="commit-url-title">
      <h3 id="commit-url-title">Commit links</h3>
      <div className="form-grid">
        <Field
          label="Commit URL"
          hint="Where a commit is read, {sha} standing for its sha; blank: commits are not linked"
          error={error}
        >
          {(control) => (
            <input
              {...control}
              value={text}
              placeholder={COMMIT_URL_EXAMPLE}
              spellCheck={false}
              onChange={(event) => setText(event.target.value)}
            />
          )}
        </Field>
      </div>
      <FormErrors messages={formErrors} />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={update.isPending}>
          {update.isPending ? "Saving…" : "Save"}
        </button>
        {repo.commit_url && (
          <button
            type="button"
            className="button"
            disabled={update.isPending}
            onClick={() => send(null)}
          >
            Remove
          </button>
        )}
        {done && (
          <span className="text-good" role="status">
            {done}
          </span>
        )}
      </div>
    </form>
  );
}
