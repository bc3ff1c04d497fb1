import type { AnnotationRead, RunRead } from "../../api/types";
import { relativeToRun } from "../../lib/annotations";
import { formatDateTime } from "../../lib/format";

/**
 * The annotations near a run (`nearRunQuery`), of its suite (or every suite) and host (or
 * every host): what happened around it that its numbers may show (a deploy, a kernel upgrade
 * the lab noticed, changed gate settings), each with how long before or after the run.
 */
export function RunAnnotations({
  run,
  annotations,
}: {
  run: RunRead;
  annotations: AnnotationRead[];
}) {
  if (annotations.length === 0) return null;
  const started = Date.parse(run.started_at);
  return (
    <section aria-labelledby="run-annotations">
      <h2 id="run-annotations">Annotated near this run</h2>
      <ul className="trend-annotations" aria-label="Annotations near this run">
        {annotations.map((annotation) => (
          <li key={annotation.id}>
            {formatDateTime(annotation.at)}{" "}
            <span className="muted small">
              ({relativeToRun(Date.parse(annotation.at) - started)})
            </span>
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
