import { useState } from "react";

import {
  useCreateChannel,
  useDeleteChannel,
  useMuteChannel,
  useTestChannel,
} from "../../api/alerts";
import { errorMessage } from "../../api/client";
import type { ChannelCreate, ChannelRead, ChannelTest } from "../../api/types";
import { useForm, type FieldErrors } from "../../hooks/useForm";
import { describeTest } from "../../lib/channels";
import { formatDateTime } from "../../lib/format";
import { ConfirmButton } from "../common/ConfirmButton";
import { SelectField, TextField } from "../common/Field";
import { FormPanel } from "../common/FormPanel";
import { EmptyState } from "../common/Status";
import { SettingsTable } from "./SettingsTable";

const SLACK: ChannelCreate["kind"] = "slack";
const KINDS = [
  { value: "slack", text: "Slack incoming webhook" },
  { value: "webhook", text: "generic webhook" },
  { value: "email", text: "email" },
];
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
  const form = useForm({ name: "", kind: SLACK, url: "", digest: false });
  const { field } = form;
  const mail = form.text.kind === "email";

  function submit() {
    const { name, kind, url, digest } = form.text;
    const found: FieldErrors<"name" | "url"> = {};
    if (name.trim() === "") found.name = "a name";
    if (mail && !ADDRESSES.test(url.trim())) found.url = "email addresses, comma-separated";
    if (!mail && !URL_PATTERN.test(url.trim())) found.url = "an http(s) URL";
    if (!form.start(found)) return;
    const address = mail ? `mailto:${url.trim().replace(/\s+/g, "")}` : url.trim();
    create.mutate(
      { name: name.trim(), kind, url: address, digest: mail && digest },
      {
        // The URL is a secret: once stored it leaves the page too.
        onSuccess: (channel) =>
          form.finish(`Channel "${channel.name}" added.`, (current) => ({
            ...current,
            url: "",
            name: "",
          })),
      },
    );
  }

  return (
    <FormPanel
      id="new-channel"
      title="New channel"
      submitLabel="Add channel"
      pending={create.isPending}
      errors={create.isError ? [errorMessage(create.error)] : []}
      done={form.done}
      onSubmit={submit}
    >
      <TextField label="Name" {...field("name")} />
      <SelectField label="Kind" options={KINDS} {...field("kind")} />
      <TextField
        label={mail ? "Email addresses" : "Webhook URL"}
        hint={
          mail
            ? "Comma-separated; sent through the lab's SMTP server, never shown again"
            : "Stored as a secret: it is never shown again"
        }
        type={mail ? "text" : "url"}
        autoComplete="off"
        placeholder={mail ? "oncall@example.com, lead@example.com" : "https://hooks.slack.com/services/…"}
        {...field("url")}
      />
      {mail && (
        <label className="checkbox">
          <input
            type="checkbox"
            checked={form.text.digest}
            onChange={(event) => form.set("digest")(event.target.checked)}
          />{" "}
          A daily digest: the day&apos;s messages as one mail
        </label>
      )}
    </FormPanel>
  );
}
