import { useCreateAnnotation, useDeleteAnnotation } from "../../api/annotations";
import { useForm } from "../../hooks/useForm";
import { annotationTitle, type AnnotationMarker } from "../../lib/annotations";
import { problemsByField } from "../../lib/params";
import { TextField } from "../common/Field";
import { FormPanel } from "../common/FormPanel";

/** The form's fields, which show their own refusals. */
const FIELDS = ["text", "at", "until", "link"];

const EMPTY_ANNOTATION = { text: "", at: "", until: "", link: "", everySuite: false };

/** The API's refusal of an annotation: the problems of the form's fields on them, the others
 * (named by their path) above its button. */
function annotationProblems(body: unknown): { fields: Record<string, string>; other: string[] } {
  const problems = problemsByField(body, "$.");
  const fields = Object.entries(problems.fields);
  return {
    fields: Object.fromEntries(fields.filter(([name]) => FIELDS.includes(name))),
    other: [
      ...fields
        .filter(([name]) => !FIELDS.includes(name))
        .map(([name, message]) => `${name}: ${message}`),
      ...problems.other,
    ],
  };
}

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
  canWrite,
}: {
  markers: AnnotationMarker[];
  suite: string;
  host: string | null;
  canWrite: boolean;
}) {
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
  const form = useForm(EMPTY_ANNOTATION);
  const { field } = form;

  function submit() {
    const { text, at, until, link, everySuite } = form.text;
    const moment = at === "" ? null : new Date(`${at}Z`);
    const end = until === "" ? null : new Date(`${until}Z`);
    const problem =
      text.trim() === ""
        ? { text: "Say what happened." }
        : moment !== null && Number.isNaN(moment.getTime())
          ? { at: "A moment, in UTC." }
          : end !== null && (Number.isNaN(end.getTime()) || end <= (moment ?? new Date()))
            ? { until: "After the start (or after now)." }
            : {};
    if (!form.start(problem)) return;
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
        onSuccess: () =>
          form.finish(null, (current) => ({ ...EMPTY_ANNOTATION, everySuite: current.everySuite })),
        onError: (failure) => form.failed(failure, annotationProblems),
      },
    );
  }

  return (
    <FormPanel
      id="annotate-title"
      title="Annotate"
      submitLabel={create.isPending ? "Saving…" : "Annotate"}
      pending={create.isPending}
      errors={form.other}
      onSubmit={submit}
    >
      <TextField
        label="What happened"
        maxLength={500}
        placeholder="deployed orders 2.4 (batching off)"
        {...field("text")}
      />
      <TextField
        label="When (UTC)"
        hint="Blank: now"
        type="datetime-local"
        step={1}
        {...field("at")}
      />
      <TextField
        label="Until (UTC)"
        hint="A range's end (optional)"
        type="datetime-local"
        step={1}
        {...field("until")}
      />
      <TextField
        label="Link"
        hint="A page about it (optional)"
        type="url"
        placeholder="https://ci.example.com/deploys/812"
        {...field("link")}
      />
      <label className="checkbox">
        <input
          type="checkbox"
          checked={form.text.everySuite}
          onChange={(event) => form.set("everySuite")(event.target.checked)}
        />{" "}
        Every suite&apos;s trends, not only {suite}&apos;s
        {host ? ` (host ${host})` : ""}
      </label>
    </FormPanel>
  );
}
