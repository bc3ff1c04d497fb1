import { useState, type FormEvent } from "react";

import { errorMessage } from "../../api/client";
import type { QueryState } from "../../api/hooks";
import { useRevokeShareLink, useSetEmbedOrigins } from "../../api/sharing";
import type { EmbedOrigins, ShareLinkRead } from "../../api/types";
import { formatDateTime } from "../../lib/format";
import { EmptyState } from "../common/Status";
import { SettingsTable } from "./SettingsTable";

/** What a link shows, as its list reads: "run #42", "#41 against #42", "http-order/steady p99". */
function describe(link: ShareLinkRead): string {
  const target = link.target as Record<string, unknown>;
  if (link.kind === "run") return `run #${String(target.run_id)}`;
  if (link.kind === "compare")
    return `run #${String(target.candidate)} against #${String(target.baseline)}`;
  return `${String(target.suite)}/${String(target.scenario)} ${String(target.metric ?? "p99")}`;
}

function state(link: ShareLinkRead): string {
  if (link.revoked_at) return `revoked ${formatDateTime(link.revoked_at)}`;
  if (link.expires_at && Date.parse(link.expires_at) <= Date.now()) return "expired";
  return link.expires_at ? `until ${formatDateTime(link.expires_at)}` : "live";
}

/**
 * The project's share links (made with Share on a run, comparison or trend page): what each
 * shows, who made it, whether it still opens, and Revoke; and the origins whose pages may frame
 * them (admins change those).
 */
export function ShareLinks({
  links,
  origins,
  canWrite,
  isAdmin,
}: {
  links: QueryState<ShareLinkRead[]>;
  /** The origins saved, once read. */
  origins: EmbedOrigins | undefined;
  canWrite: boolean;
  isAdmin: boolean;
}) {
  const revoke = useRevokeShareLink();
  return (
    <>
      <SettingsTable
        className="share-links-table"
        columns={["Shows", "Token", "Made by", "Made", "State"]}
        actions
        rows={links}
        loading="Loading share links…"
        empty={
          <EmptyState title="No share links">
            Share on a run, a comparison or a trend makes a read-only link to it.
          </EmptyState>
        }
        error={revoke.isError ? errorMessage(revoke.error) : null}
      >
        {(link) => (
          <tr key={link.id} data-link-id={link.id}>
            <th scope="row">{describe(link)}</th>
            <td className="mono">{link.prefix}…</td>
            <td>{link.created_by}</td>
            <td className="nowrap">{formatDateTime(link.created_at)}</td>
            <td>{state(link)}</td>
            <td>
              {canWrite && !link.revoked_at && (
                <button
                  type="button"
                  className="button button-small"
                  disabled={revoke.isPending}
                  onClick={() => revoke.mutate(link.id)}
                >
                  Revoke
                </button>
              )}
            </td>
          </tr>
        )}
      </SettingsTable>
      <EmbedOriginsForm origins={origins} isAdmin={isAdmin} />
    </>
  );
}

function EmbedOriginsForm({
  origins,
  isAdmin,
}: {
  origins: EmbedOrigins | undefined;
  isAdmin: boolean;
}) {
  const save = useSetEmbedOrigins();
  const [text, setText] = useState<string | null>(null);
  const shown = text ?? (origins?.origins ?? []).join(" ");

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    save.mutate(
      { origins: shown.split(/[\s,]+/).filter(Boolean) },
      { onSuccess: () => setText(null) },
    );
  }

  return (
    <form className="panel" onSubmit={submit} aria-labelledby="embed-title">
      <h3 id="embed-title">Pages that may frame shared links</h3>
      <p className="muted small">
        Origins (https://wiki.example.com) whose pages may embed this project&apos;s shared links
        in an iframe; none: no page may.
      </p>
      <input
        aria-label="Embedding origins"
        value={shown}
        disabled={!isAdmin}
        placeholder="https://wiki.example.com"
        onChange={(event) => setText(event.target.value)}
      />
      {save.isError && <p className="error small">{errorMessage(save.error)}</p>}
      {isAdmin && (
        <div className="form-actions">
          <button type="submit" className="button" disabled={save.isPending}>
            Save origins
          </button>
        </div>
      )}
    </form>
  );
}
