import { useState } from "react";

import {
  useCreateChannel,
  useDeleteChannel,
  useMuteChannel,
  useTestChannel,
} from "../../api/alerts";
import { errorMessage } from "../../api/client";
import type { ChannelCreate, ChannelRead, ChannelTest } from "../../api/types";
import { describeTest } from "../../lib/channels";
import { formatDateTime } from "../../lib/format";
import { ConfirmButton } from "../common/ConfirmButton";
import { Field } from "../common/Field";
import { EmptyState } from "../common/Status";
import { CreateForm } from "./CreateForm";
import { SettingsTable } from "./SettingsTable";

const URL_PATTERN = /^https?:\/\/\S+$/;
const ADDRESSES = /^[^\s@,]+@[^\s@,]+(,\s*[^\s@,]+@[^\s@,]+)*$/;

/** Slack incoming webhooks, generic webhooks and email; a URL (an email channel's addresses)
 * is a secret and is never shown back. */
export function Channels({ channels, canWrite }: { channels: ChannelRead[]; canWrite: boolean }) {
  const test = useTestChannel();
  const remove = useDeleteChannel();
  const mute = useMuteChannel();
  const [results, setResults] = useState<Record<number, ChannelTest | string>>({});

  function sendTest(channel: ChannelRead) {
    setResults((current) => {
      const next = { ...current };
      delete next[channel.id];
      return next;
    });
    test.mutate(channel.id, {
      onSuccess: (delivery) => setResults((current) => ({ ...current, [channel.id]: delivery })),
      onError: (error) =>
        setResults((current) => ({ ...current, [channel.id]: errorMessage(error) })),
    });
  }

  return (
    <>
      <SettingsTable
        className="channels-table"
        columns={["Name", "Kind", "Added", "Deliveries"]}
        actions
        rows={channels}
        empty={
          <EmptyState title="No channels">
            Alerts are stored but sent nowhere until a channel exists.
          </EmptyState>
        }
        error={remove.isError || mute.isError ? errorMessage(remove.error ?? mute.error) : null}
      >
        {(channel) => {
          const result = results[channel.id];
          return (
            <tr key={channel.id} data-channel-id={channel.id}>
              <th scope="row">{channel.name}</th>
              <td>
                {channel.kind}
                {channel.digest ? " (daily digest)" : ""}
              </td>
              <td className="nowrap">{formatDateTime(channel.created_at)}</td>
              <td>
                <ChannelHealth channel={channel} />
              </td>
              <td>
                <div className="actions">
                  {canWrite && (
                    <>
                      <button
                        type="button"
                        className="button button-small"
                        disabled={mute.isPending && mute.variables.channelId === channel.id}
                        onClick={() =>
                          mute.mutate({ channelId: channel.id, muted: !channel.muted })
                        }
                      >
                        {channel.muted ? "Unmute" : "Mute"}
                      </button>
                      <button
                        type="button"
                        className="button button-small"
                        disabled={test.isPending && test.variables === channel.id}
                        onClick={() => sendTest(channel)}
                      >
                        Send a test
                      </button>
                      <ConfirmButton
                        label="Delete"
                        accessibleName={`Delete channel ${channel.name}`}
                        onConfirm={() => remove.mutate(channel.id)}
                      />
                    </>
                  )}
                  {result !== undefined && (
                    <span
                      role="status"
                      className={typeof result !== "string" && result.ok ? "text-good" : "text-bad"}
                    >
                      {typeof result === "string" ? result : describeTest(result, channel.kind)}
                    </span>
                  )}
                </div>
              </td>
            </tr>
          );
        }}
      </SettingsTable>
      {canWrite && <ChannelCreateForm />}
    </>
  );
}

/** How its deliveries go: ok, failing (since when, the last error, the next try) or muted. */
function ChannelHealth({ channel }: { channel: ChannelRead }) {
  if (channel.status === "muted") return <span className="muted">muted: sent nothing</span>;
  if (channel.status === "ok") return <span className="text-good">ok</span>;
  return (
    <span className="text-bad channel-health" data-channel-status="failing">
      <strong>failing</strong> since{" "}
      {channel.failing_since ? formatDateTime(channel.failing_since) : "—"}:{" "}
      {channel.consecutive_failures} failed attempts in a row
      {channel.retry_at ? `, next try ${formatDateTime(channel.retry_at)}` : ""}. Last error:{" "}
      {channel.last_error ?? "no answer"}
    </span>
  );
}

function ChannelCreateForm() {
  const create = useCreateChannel();
  const [name, setName] = useState("");
  const [kind, setKind] = useState<ChannelCreate["kind"]>("slack");
  const [url, setUrl] = useState("");
  const [digest, setDigest] = useState(false);
  const [errors, setErrors] = useState<{ name?: string; url?: string }>({});
  const mail = kind === "email";
  const [done, setDone] = useState<string | null>(null);

  function submit() {
    setDone(null);
    const found: { name?: string; url?: string } = {};
    if (name.trim() === "") found.name = "a name";
    if (mail && !ADDRESSES.test(url.trim())) found.url = "email addresses, comma-separated";
    if (!mail && !URL_PATTERN.test(url.trim())) found.url = "an http(s) URL";
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const address = mail ? `mailto:${url.trim().replace(/\s+/g, "")}` : url.trim();
    create.mutate(
      { name: name.trim(), kind, url: address, digest: mail && digest },
      {
        onSuccess: (channel) => {
          // The URL is a secret: once stored it leaves the page too.
          setUrl("");
          setName("");
          setDone(`Channel "${channel.name}" added.`);
        },
      },
    );
  }

  return (
    <CreateForm
      id="new-channel"
      title="New channel"
      submitLabel="Add channel"
      pending={create.isPending}
      errors={create.isError ? [errorMessage(create.error)] : []}
      done={done}
      onSubmit={submit}
    >
      <Field label="Name" error={errors.name}>
        {(control) => (
          <input {...control} value={name} onChange={(event) => setName(event.target.value)} />
        )}
      </Field>
      <Field label="Kind">
        {(control) => (
          <select
            {...control}
            value={kind}
            onChange={(event) => setKind(event.target.value as ChannelCreate["kind"])}
          >
            <option value="slack">Slack incoming webhook</option>
            <option value="webhook">generic webhook</option>
            <option value="email">email</option>
          </select>
        )}
      </Field>
      <Field
        label={mail ? "Email addresses" : "Webhook URL"}
        hint={
          mail
            ? "Comma-separated; sent through the lab's SMTP server, never shown again"
            : "Stored as a secret: it is never shown again"
        }
        error={errors.url}
      >
        {(control) => (
          <input
            {...control}
            type={mail ? "text" : "url"}
            autoComplete="off"
            placeholder={mail ? "oncall@example.com, lead@example.com" : "https://hooks.slack.com/services/…"}
            value={url}
            onChange={(event) => setUrl(event.target.value)}
          />
        )}
      </Field>
      {mail && (
        <label className="checkbox">
          <input
            type="checkbox"
            checked={digest}
            onChange={(event) => setDigest(event.target.checked)}
          />{" "}
          A daily digest: the day&apos;s messages as one mail
        </label>
      )}
    </CreateForm>
  );
}
