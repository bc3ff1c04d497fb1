import { useState } from "react";

import { errorMessage } from "../../api/client";
import { useCreateShareLink, useRevokeShareLink } from "../../api/sharing";
import type { ShareLinkCreate, ShareLinkCreated } from "../../api/types";

/**
 * "Share": makes a read-only link to this view (members), then shows it with what embeds it —
 * an iframe, and for a trend its badge as Markdown — and a way to revoke it. The link's token
 * is in the URL and nowhere else: it is shown once.
 */
export function ShareButton({
  body,
  what,
  canWrite,
}: {
  body: ShareLinkCreate;
  what: string;
  canWrite: boolean;
}) {
  const create = useCreateShareLink();
  const revoke = useRevokeShareLink();
  const [made, setMade] = useState<ShareLinkCreated | null>(null);
  if (!canWrite) return null;
  if (made === null) {
    return (
      <>
        <button
          type="button"
          className="button"
          disabled={create.isPending}
          onClick={() => create.mutate(body, { onSuccess: setMade })}
        >
          Share
        </button>
        {create.isError && <span className="error small">{errorMessage(create.error)}</span>}
      </>
    );
  }
  const snippets = [
    { label: `Read-only link to ${what}`, value: made.url },
    { label: "Embed", value: `<iframe src="${made.url}" width="1000" height="600"></iframe>` },
    ...(made.badge_url
      ? [{ label: "Badge (Markdown)", value: `[![${what}](${made.badge_url})](${made.url})` }]
      : []),
  ];
  return (
    <div className="panel share-panel" role="group" aria-label="Shared link">
      {snippets.map((snippet) => (
        <label key={snippet.label} className="field">
          <span>{snippet.label}</span>
          <input readOnly value={snippet.value} onFocus={(event) => event.target.select()} />
        </label>
      ))}
      <p className="muted small">
        Anyone with the link sees this {what} without a login, and nothing else of the project;
        it is shown once.{" "}
        {revoke.isSuccess ? (
          <strong>Revoked.</strong>
        ) : (
          <button
            type="button"
            className="link-button"
            disabled={revoke.isPending}
            onClick={() => revoke.mutate(made.id)}
          >
            Revoke it
          </button>
        )}
      </p>
    </div>
  );
}
