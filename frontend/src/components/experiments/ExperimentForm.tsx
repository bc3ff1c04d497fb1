import { useState } from "react";

import { errorMessage } from "../../api/client";
import { useSaveExperiment } from "../../api/experiments";
import type { ExperimentRead } from "../../api/types";
import { parseDocument } from "../../lib/experiments";
import { TextField } from "../common/Field";
import { FormPanel } from "../common/FormPanel";

/** A document to start from: two jobs, their series, an expectation and a reference figure. */
export const TEMPLATE = JSON.stringify(
  {
    name: "tuning",
    title: "Does host tuning halve the order API's P50?",
    question: "Pinned, locked and FIFO-scheduled clients against the defaults.",
    jobs: {
      baseline: { suite: "http-order", scenario: "large", params: { loads: "rust" } },
      tuned: {
        suite: "http-order",
        scenario: "large",
        params: { loads: "rust", pin_cpus: "1", mlock: true },
      },
    },
    series: {
      before: { job: "baseline", labels: { client: "rust" } },
      after: { job: "tuned", labels: { client: "rust" } },
    },
    expectations: ["p50(after) <= 0.5 * p50(before)"],
    references: [],
  },
  null,
  2,
);

/**
 * "Save an experiment": its document as JSON (name, title, question, jobs, series,
 * expectations, references, derived metrics, conclusions), checked here as JSON, then by the API, which
 * says what it lacks. A changed document is the experiment's next version.
 */
export function ExperimentForm({
  initial = TEMPLATE,
  onSaved,
}: {
  initial?: string;
  onSaved: (experiment: ExperimentRead, created: boolean) => void;
}) {
  const save = useSaveExperiment();
  const [text, setText] = useState(initial);
  const [errors, setErrors] = useState<string[]>([]);

  function submit() {
    const parsed = parseDocument(text);
    if (parsed.error !== null) {
      setErrors([parsed.error]);
      return;
    }
    setErrors([]);
    save.mutate(parsed.document, {
      onSuccess: ({ experiment, created }) => onSaved(experiment, created),
      onError: (error) => setErrors([errorMessage(error)]),
    });
  }

  return (
    <FormPanel
      id="save-experiment"
      title="Save an experiment"
      submitLabel="Save"
      pending={save.isPending}
      errors={errors}
      onSubmit={submit}
    >
      <TextField
        label="Document (JSON)"
        hint="Expectations: p50(after) <= 0.5 * p50(before), throughput(a) >= throughput(b) for connections <= 100, p95(x) <= 500 ms"
        className="mono experiment-document"
        rows={24}
        spellCheck={false}
        value={text}
        onChange={setText}
      />
    </FormPanel>
  );
}
