import { useState, type FormEvent } from "react";

import { useCreateAnnotation, useDeleteAnnotation } from "../../api/annotations";
import { usePermissions } from "../../api/auth";
import { refusal } from "../../api/client";
import { annotationTitle, type AnnotationMarker } from "../../lib/annotations";
import { problemsByField } from "../../lib/params";
import { Field, FormErrors } from "../common/Field";

/** The form's fields, which show their own refusals. */
const FIELDS = ["text", "at", "until", "link"];

const KIND_TEXT: Record<string, string> = {
  note: "note",
  host: "the lab: host changed",
  suite: "the lab: suite changed",
  gate: "the lab: gate settings changed",
};

/**
 * The annotations a trend draws, numbered as on the chart (who made each, its link), and a
 * form to add one (members): a deploy, a config change, now or at a moment, for this suite or
 * every suite.
 */
export function TrendAnnotations({
  markers,
  suite,
  host,
}: {
  markers: AnnotationMarker[];
  suite: string;
  host: string | null;
}) {
  const { canWrite } = usePermissions();
  const remove = useDeleteAnnotation();
  return (
    <section aria-labelledby="annotations-title">
      <h2 id="annotations-title">Annotations</h2>
      {markers.length === 0 ? (
        <p className="muted">
          Nothing marked on this history: the lab marks a host&apos;s tuning or a suite&apos;s
          version changing; people and CI steps mark deploys and changes.
        </p>
      ) : (
        <ul className="trend-annotations" aria-label="Annotations">
          {markers.map((marker) => (
            <li key={marker.annotation.id} data-annotation-id={marker.annotation.id}>
              {annotationTitle(marker)}{" "}
              <span className="muted small">
                ({KIND_TEXT[marker.annotation.kind] ?? marker.annotation.kind}
                {marker.annotation.kind === "note" ? `, ${marker.annotation.created_by}` : ""}
                {marker.annotation.suite === null ? ", every suite" : ""})
              </span>
              {marker.annotation.link && (
                <>
                  {" "}
                  <a href={marker.annotation.link} rel="noreferrer noopener" target="_blank">
                    link
                  </a>
                </>
              )}
              {canWrite && (
                <>
                  {" "}
                  <button
                    type="button"
                    className="link-button"
                    disabled={remove.isPending}
                    onClick={() => remove.mutate(marker.annotation.id)}
                  >
                    remove
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {canWrite && <AnnotationForm suite={suite} host={host} />}
    </section>
  );
}

function AnnotationForm({ suite, host }: { suite: string; host: string | null }) {
  const create = useCreateAnnotation();
  const [text, setText] = useState("");
  const [at, setAt] = useState("");
  const [until, setUntil] = useState("");
  const [link, setLink] = useState("");
  const [everySuite, setEverySuite] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [other, setOther] = useState<string[]>([]);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setErrors({});
    setOther([]);
    if (text.trim() === "") {
      setErrors({ text: "Say what happened." });
      return;
    }
    const moment = at === "" ? null : new Date(`${at}Z`);
    const end = until === "" ? null : new Date(`${until}Z`);
    if (moment !== null && Number.isNaN(moment.getTime())) {
      setErrors({ at: "A moment, in UTC." });
      return;
    }
    if (end !== null && (Number.isNaN(end.getTime()) || end <= (moment ?? new Date()))) {
      setErrors({ until: "After the start (or after now)." });
      return;
    }
    create.mutate(
      {
        text: text.trim(),
        ...(moment ? { at: moment.toISOString() } : {}),
        ...(end ? { until: end.toISOString() } : {}),
        ...(link.trim() ? { link: link.trim() } : {}),
        ...(everySuite ? {} : { suite }),
        ...(host ? { host } : {}),
      },
      {
        onSuccess: () => {
          setText("");
          setAt("");
          setUntil("");
          setLink("");
        },
        onError: (failure) => {
          const problems = refusal(failure, (body) => problemsByField(body, "$."));
          const fields = Object.entries(problems.fields as Record<string, string>);
          setErrors(Object.fromEntries(fields.filter(([name]) => FIELDS.includes(name))));
          setOther([
            ...fields
              .filter(([name]) => !FIELDS.includes(name))
              .map(([name, message]) => `${name}: ${message}`),
            ...problems.other,
          ]);
        },
      },
    );
  }

  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="annotate-title">
      <h3 id="annotate-title">Annotate</h3>
      <div className="form-grid">
        <Field label="What happened" error={errors.text}>
          {(control) => (
            <input
              {...control}
              value={text}
              maxLength={500}
              placeholder="deployed orders 2.4 (batching off)"
              onChange={(event) => setText(event.target.value)}
            />
          )}
        </Field>
        <Field label="When (UTC)" hint="Blank: now" error={errors.at}>
          {(control) => (
            <input
              {...control}
              type="datetime-local"
              step={1}
              value={at}
              onChange={(event) => setAt(event.target.value)}
            />
          )}
        </Field>
        <Field label="Until (UTC)" hint="A range's end (optional)" error={errors.until}>
          {(control) => (
            <input
              {...control}
              type="datetime-local"
              step={1}
              value={until}
              onChange={(event) => setUntil(event.target.value)}
            />
          )}
        </Field>
        <Field label="Link" hint="A page about it (optional)" error={errors.link}>
          {(control) => (
            <input
              {...control}
              type="url"
              value={link}
              placeholder="https://ci.example.com/deploys/812"
              onChange={(event) => setLink(event.target.value)}
            />
          )}
        </Field>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={everySuite}
            onChange={(event) => setEverySuite(event.target.checked)}
          />{" "}
          Every suite&apos;s trends, not only {suite}&apos;s
          {host ? ` (host ${host})` : ""}
        </label>
      </div>
      <FormErrors messages={other} />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? "Saving…" : "Annotate"}
        </button>
      </div>
    </form>
  );
}
