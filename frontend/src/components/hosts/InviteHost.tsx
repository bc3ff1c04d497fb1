import { useState } from "react";

import { errorMessage } from "../../api/client";
import { useInviteHost } from "../../api/hosts";
import { TextField } from "../common/Field";
import { FormPanel } from "../common/FormPanel";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/**
 * An admin invites a machine to join the lab as a host: its name and tags give a one-time
 * code, shown once with the command to run on the machine (`scripts/join-host.sh`).
 */
export function InviteHost() {
  const invite = useInviteHost();
  const [name, setName] = useState("");
  const [tags, setTags] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [command, setCommand] = useState<{ name: string; command: string; until: string }>();

  function submit() {
    setCommand(undefined);
    if (!NAME.test(name.trim())) {
      setError("Letters, digits, . _ - (it names the host's queue)");
      return;
    }
    setError(undefined);
    const tagList = tags.split(",").map((tag) => tag.trim()).filter(Boolean);
    invite.mutate(
      { name: name.trim(), tags: tagList, expires_in_hours: 24 },
      {
        onSuccess: (invitation) => {
          setName("");
          setTags("");
          setCommand({
            name: invitation.name,
            command: invitation.command,
            until: invitation.expires_at,
          });
        },
      },
    );
  }

  return (
    <>
      <FormPanel
        id="invite-host"
        title="Invite a host"
        submitLabel={invite.isPending ? "Inviting…" : "Invite"}
        pending={invite.isPending}
        errors={invite.isError ? [errorMessage(invite.error)] : []}
        onSubmit={submit}
      >
        <TextField
          label="Name"
          hint="Its queue is host.<name>"
          error={error}
          value={name}
          onChange={setName}
        />
        <TextField
          label="Tags"
          hint="Comma-separated: what jobs' host tags select"
          value={tags}
          onChange={setTags}
        />
      </FormPanel>
      {command && (
        <div className="panel" role="status" aria-label="Join command">
          <p>
            Run this once, in a checkout of latlab, on the machine that is to be{" "}
            <strong>{command.name}</strong> (the code
            is good once, until {new Date(command.until).toLocaleString()}; it is not shown
            again):
          </p>
          <pre className="mono">{command.command}</pre>
          <p className="muted">
            It installs the suites' toolchains and the runner, joins, and starts the runner as a
            systemd service (without systemd: run latlab-runner run under your supervisor).
          </p>
        </div>
      )}
    </>
  );
}
