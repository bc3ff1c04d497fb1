import { useState } from "react";

import { useCreateToken, useRevokeToken } from "../../api/auth";
import { errorMessage } from "../../api/client";
import type { QueryState } from "../../api/hooks";
import type { Scope, TokenCreated, TokenRead } from "../../api/types";
import { useForm, type FieldErrors } from "../../hooks/useForm";
import { formatDateTime } from "../../lib/format";
import { Badge } from "../common/Badge";
import { ConfirmButton } from "../common/ConfirmButton";
import { TextField } from "../common/Field";
import { FormPanel } from "../common/FormPanel";
import { EmptyState } from "../common/Status";
import { Pagination } from "../runs/Pagination";
import { SettingsTable } from "./SettingsTable";

const SCOPES: { scope: Scope; what: string }[] = [
  { scope: "runs:write", what: "submit runs (CI)" },
  { scope: "jobs:write", what: "launch jobs" },
  { scope: "read", what: "read runs, comparisons, trends" },
  { scope: "metrics:read", what: "Prometheus scrapes /metrics" },
];

const TOKENS_PAGE = 20;

/** CI tokens, a page at a time: the secret is shown once, right after creation, and never
 * again. */
export function Tokens({
  tokens,
  canWrite,
}: {
  tokens: QueryState<TokenRead[]>;
  canWrite: boolean;
}) {
  const revoke = useRevokeToken();
  const [created, setCreated] = useState<TokenCreated | null>(null);
  const [offset, setOffset] = useState(0);
  const all = tokens.data ?? [];
  return (
    <>
      {created && <NewToken token={created} onDismiss={() => setCreated(null)} />}
      <SettingsTable
        className="tokens-table"
        columns={["Name", "Token", "Scopes", "Created", "Expires", "Last used", "State"]}
        actions
        rows={{ ...tokens, data: tokens.data?.slice(offset, offset + TOKENS_PAGE) }}
        loading="Loading tokens…"
        empty={
          <EmptyState title="No API tokens">CI submits runs with a token made here.</EmptyState>
        }
        error={revoke.isError ? errorMessage(revoke.error) : null}
      >
        {(token) => {
          const expired =
            token.expires_at !== null && new Date(token.expires_at).getTime() < Date.now();
          return (
            <tr key={token.id} data-token-id={token.id}>
              <th scope="row">{token.name}</th>
              <td className="mono">{token.prefix}…</td>
              <td>{token.scopes.join(", ")}</td>
              <td className="nowrap">{formatDateTime(token.created_at)}</td>
              <td className="nowrap">
                {token.expires_at ? formatDateTime(token.expires_at) : "never"}
              </td>
              <td className="nowrap">{formatDateTime(token.last_used_at)}</td>
              <td>
                {token.revoked_at ? (
                  <Badge tone="neutral">revoked</Badge>
                ) : expired ? (
                  <Badge tone="neutral">expired</Badge>
                ) : (
                  <Badge tone="good">active</Badge>
                )}
              </td>
              <td>
                {canWrite && !token.revoked_at && (
                  <ConfirmButton
                    label="Revoke"
                    accessibleName={`Revoke token ${token.name}`}
                    onConfirm={() => revoke.mutate(token.id)}
                  />
                )}
              </td>
            </tr>
          );
        }}
      </SettingsTable>
      {all.length > TOKENS_PAGE && (
        <Pagination
          total={all.length}
          capped={false}
          limit={TOKENS_PAGE}
          offset={offset}
          onOffsetChange={setOffset}
          label="Token pages"
        />
      )}
      {canWrite && <TokenCreateForm onCreated={setCreated} />}
    </>
  );
}

function NewToken({ token, onDismiss }: { token: TokenCreated; onDismiss: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret" role="alert" aria-labelledby="new-token-title">
      <strong id="new-token-title">
        Token &quot;{token.name}&quot; created. Copy it now: it is shown only this once.
      </strong>
      <code className="secret-value" data-testid="new-token">
        {token.token}
      </code>
      <div className="form-actions">
        <button
          type="button"
          className="button"
          onClick={() =>
            void navigator.clipboard?.writeText(token.token).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" className="button" onClick={onDismiss}>
          I have stored it
        </button>
      </div>
    </div>
  );
}

function TokenCreateForm({ onCreated }: { onCreated: (token: TokenCreated) => void }) {
  const create = useCreateToken();
  const form = useForm({ name: "", scopes: ["runs:write", "read"] as Scope[], expires: "" });
  const { scopes } = form.text;

  function submit() {
    const { name, expires } = form.text;
    const found: FieldErrors<"name" | "scopes"> = {};
    if (name.trim() === "") found.name = "a name, e.g. the CI pipeline";
    if (scopes.length === 0) found.scopes = "at least one scope";
    if (!form.start(found)) return;
    create.mutate(
      { name: name.trim(), scopes, expires_at: expires ? `${expires}T23:59:59Z` : null },
      {
        onSuccess: (token) => {
          form.set("name")("");
          onCreated(token);
        },
      },
    );
  }

  return (
    <FormPanel
      id="new-token"
      title="New API token"
      submitLabel="Create token"
      pending={create.isPending}
      errors={create.isError ? [errorMessage(create.error)] : []}
      onSubmit={submit}
      after={
        <fieldset className="checks">
          <legend>Scopes</legend>
          {SCOPES.map(({ scope, what }) => (
            <label key={scope}>
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(event) =>
                  form.set("scopes")(
                    event.target.checked
                      ? [...scopes, scope]
                      : scopes.filter((item) => item !== scope),
                  )
                }
              />{" "}
              <span className="mono">{scope}</span> <span className="muted small">({what})</span>
            </label>
          ))}
          {form.errors.scopes && <span className="field-error">{form.errors.scopes}</span>}
        </fieldset>
      }
    >
      <TextField label="Token name" {...form.field("name")} />
      <TextField
        label="Expires (UTC, end of day)"
        hint="Blank: never"
        type="date"
        {...form.field("expires")}
      />
    </FormPanel>
  );
}
