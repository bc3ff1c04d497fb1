import { useAnnotations } from "../../api/annotations";
import type { RunRead } from "../../api/types";
import { relativeToRun } from "../../lib/annotations";
import { formatDateTime } from "../../lib/format";

const DAY_MS = 86_400_000;
/** How far before a run an annotation is worth its reader's eye (a deploy last week), and
 * after (the same day's). */
const BEFORE_DAYS = 7;
const AFTER_DAYS = 1;

/**
 * The annotations near a run, of its suite (or every suite) and host (or every host): what
 * happened around it that its numbers may show (a deploy, a kernel upgrade the lab noticed,
 * changed gate settings), each with how long before or after the run.
 */
export function RunAnnotations({ run }: { run: RunRead }) {
  const started = Date.parse(run.started_at);
  const annotations = useAnnotations({
    suite: run.suite,
    ...(run.host_name ? { host: run.host_name } : {}),
    since: new Date(started - BEFORE_DAYS * DAY_MS).toISOString(),
    until: new Date(started + AFTER_DAYS * DAY_MS).toISOString(),
    limit: 20,
  });
  const found = annotations.data ?? [];
  if (found.length === 0) return null;
  return (
    <section aria-labelledby="run-annotations">
      <h2 id="run-annotations">Annotated near this run</h2>
      <ul className="trend-annotations" aria-label="Annotations near this run">
        {found.map((annotation) => (
          <li key={annotation.id}>
            {formatDateTime(annotation.at)}{" "}
            <span className="muted small">({relativeToRun(Date.parse(annotation.at) - started)})</span>
            : {annotation.text}
            {annotation.link && (
              <>
                {" "}
                <a href={annotation.link} rel="noreferrer noopener" target="_blank">
                  link
                </a>
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
