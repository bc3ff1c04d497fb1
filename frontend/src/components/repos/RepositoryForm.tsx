import { useState } from "react";

import { refusal } from "../../api/client";
import { useCreateRepository } from "../../api/repos";
import {
  checkRepository,
  COMMIT_URL_EXAMPLE,
  EMPTY_REPOSITORY,
  registrationProblems,
  type RepositoryField,
  type RepositoryText,
} from "../../lib/repos";
import { Field } from "../common/Field";
import { CreateForm } from "../settings/CreateForm";

/**
 * Register a git repository: the lab reads its default branch with the credentials given
 * before it keeps anything, and says why it could not (on the field it names). Nothing typed
 * is cleared until it is registered; the secret is write-only. Its commit URL, optional, is
 * where the dashboard links its commits.
 */
export function RepositoryForm() {
  const create = useCreateRepository();
  const [text, setText] = useState<RepositoryText>(EMPTY_REPOSITORY);
  const [errors, setErrors] = useState<Partial<Record<RepositoryField, string>>>({});
  const [formErrors, setFormErrors] = useState<string[]>([]);
  const [done, setDone] = useState<string | null>(null);
  const ssh = text.url.trim().startsWith("ssh://");

  function change(name: keyof RepositoryText, value: string | boolean) {
    setText((current) => ({ ...current, [name]: value }));
  }

  function submit() {
    setDone(null);
    setFormErrors([]);
    const checked = checkRepository(text);
    if ("errors" in checked) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    create.mutate(checked.body, {
      onSuccess: (repo) => {
        setText(EMPTY_REPOSITORY);
        setDone(`Repository "${repo.name}" registered.`);
      },
      onError: (error) => {
        const problems = refusal(error, registrationProblems);
        setErrors(problems.fields);
        setFormErrors(problems.other);
      },
    });
  }

  return (
    <CreateForm
      id="new-repository"
      title="Register a repository"
      submitLabel={create.isPending ? "Reading the repository…" : "Register"}
      pending={create.isPending}
      errors={formErrors}
      done={done}
      onSubmit={submit}
      after={
        <label className="checkbox">
          <input
            type="checkbox"
            checked={text.build_network}
            onChange={(event) => change("build_network", event.target.checked)}
          />
          Its build may use the network (to fetch dependencies); otherwise it builds with
          loopback only, like the code it runs
        </label>
      }
    >
      <Field
        label="Name"
        hint="How jobs name it: lower-case letters, digits, . _ -"
        error={errors.name}
      >
        {(control) => (
          <input
            {...control}
            value={text.name}
            onChange={(event) => change("name", event.target.value)}
          />
        )}
      </Field>
      <Field
        label="URL"
        hint="file://, git://, http(s):// or ssh://; credentials go in the secret"
        error={errors.url}
      >
        {(control) => (
          <input
            {...control}
            value={text.url}
            placeholder="https://git.example.com/team/orders.git"
            spellCheck={false}
            onChange={(event) => change("url", event.target.value)}
          />
        )}
      </Field>
      <Field label="Default branch" error={errors.default_branch}>
        {(control) => (
          <input
            {...control}
            value={text.default_branch}
            onChange={(event) => change("default_branch", event.target.value)}
          />
        )}
      </Field>
      <Field
        label="Secret"
        hint={
          ssh
            ? "The private key's text (OpenSSH); write-only, never shown again"
            : "Optional; http(s): user:token or a token; write-only, never shown again"
        }
        error={errors.secret}
      >
        {(control) =>
          ssh ? (
            <textarea
              {...control}
              value={text.secret}
              rows={4}
              spellCheck={false}
              autoComplete="off"
              onChange={(event) => change("secret", event.target.value)}
            />
          ) : (
            <input
              {...control}
              type="password"
              value={text.secret}
              autoComplete="new-password"
              onChange={(event) => change("secret", event.target.value)}
            />
          )
        }
      </Field>
      <Field
        label="Commit URL"
        hint="Optional: where a commit is read, {sha} standing for its sha (commits link there)"
        error={errors.commit_url}
      >
        {(control) => (
          <input
            {...control}
            value={text.commit_url}
            placeholder={COMMIT_URL_EXAMPLE}
            spellCheck={false}
            onChange={(event) => change("commit_url", event.target.value)}
          />
        )}
      </Field>
    </CreateForm>
  );
}
