import { useState } from "react";

import { refusal } from "../../api/client";
import { useUpdateRepository } from "../../api/repos";
import type { RepositoryRead } from "../../api/types";
import { COMMIT_URL_EXAMPLE, commitUrlProblem, registrationProblems } from "../../lib/repos";
import { TextField } from "../common/Field";
import { FormPanel } from "../common/FormPanel";

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

  function submit() {
    const problem = commitUrlProblem(text);
    if (problem !== null) {
      setError(problem);
      return;
    }
    send(text.trim() === "" ? null : text.trim());
  }

  return (
    <FormPanel
      id="commit-url-title"
      title="Commit links"
      submitLabel={update.isPending ? "Saving…" : "Save"}
      pending={update.isPending}
      errors={formErrors}
      done={done}
      onSubmit={submit}
      actions={
        repo.commit_url && (
          <button
            type="button"
            className="button"
            disabled={update.isPending}
            onClick={() => send(null)}
          >
            Remove
          </button>
        )
      }
    >
      <TextField
        label="Commit URL"
        hint="Where a commit is read, {sha} standing for its sha; blank: commits are not linked"
        error={error}
        value={text}
        placeholder={COMMIT_URL_EXAMPLE}
        spellCheck={false}
        onChange={setText}
      />
    </FormPanel>
  );
}
