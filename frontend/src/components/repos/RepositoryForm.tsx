import { useCreateRepository } from "../../api/repos";
import { useForm } from "../../hooks/useForm";
import {
  checkRepository,
  COMMIT_URL_EXAMPLE,
  EMPTY_REPOSITORY,
  registrationProblems,
  type RepositoryField,
  type RepositoryText,
} from "../../lib/repos";
import { TextField } from "../common/Field";
import { FormPanel } from "../common/FormPanel";

/**
 * Register a git repository: the lab reads its default branch with the credentials given
 * before it keeps anything, and says why it could not (on the field it names). Nothing typed
 * is cleared until it is registered; the secret is write-only. Its commit URL, optional, is
 * where the dashboard links its commits.
 */
export function RepositoryForm() {
  const create = useCreateRepository();
  const form = useForm<RepositoryText, RepositoryField>(EMPTY_REPOSITORY);
  const { text, field } = form;
  const ssh = text.url.trim().startsWith("ssh://");

  function submit() {
    const checked = checkRepository(text);
    form.start("errors" in checked ? checked.errors : {});
    if ("errors" in checked) return;
    create.mutate(checked.body, {
      onSuccess: (repo) => form.finish(`Repository "${repo.name}" registered.`, EMPTY_REPOSITORY),
      onError: (error) => form.failed(error, registrationProblems),
    });
  }

  return (
    <FormPanel
      id="new-repository"
      title="Register a repository"
      submitLabel={create.isPending ? "Reading the repository…" : "Register"}
      pending={create.isPending}
      errors={form.other}
      done={form.done}
      onSubmit={submit}
      after={
        <label className="checkbox">
          <input
            type="checkbox"
            checked={text.build_network}
            onChange={(event) => form.set("build_network")(event.target.checked)}
          />
          Its build may use the network (to fetch dependencies); otherwise it builds with
          loopback only, like the code it runs
        </label>
      }
    >
      <TextField
        label="Name"
        hint="How jobs name it: lower-case letters, digits, . _ -"
        {...field("name")}
      />
      <TextField
        label="URL"
        hint="file://, git://, http(s):// or ssh://; credentials go in the secret"
        placeholder="https://git.example.com/team/orders.git"
        spellCheck={false}
        {...field("url")}
      />
      <TextField label="Default branch" {...field("default_branch")} />
      <TextField
        label="Secret"
        hint={
          ssh
            ? "The private key's text (OpenSSH); write-only, never shown again"
            : "Optional; http(s): user:token or a token; write-only, never shown again"
        }
        {...(ssh
          ? { rows: 4, spellCheck: false, autoComplete: "off" }
          : { type: "password", autoComplete: "new-password" })}
        {...field("secret")}
      />
      <TextField
        label="Commit URL"
        hint="Optional: where a commit is read, {sha} standing for its sha (commits link there)"
        placeholder={COMMIT_URL_EXAMPLE}
        spellCheck={false}
        {...field("commit_url")}
      />
    </FormPanel>
  );
}
