import { diffColour } from "../../lib/flamegraph";

/** What a differential flame graph's widths and colours mean. */
export function DiffLegend() {
  return (
    <div className="flame-legend small" role="note" aria-label="How to read the colours">
      <span className="flame-scale" aria-hidden="true">
        {[-1, -0.5, 0, 0.5, 1].map((t) => (
          <span key={t} style={{ background: diffColour(t, 1) }} />
        ))}
      </span>
      <p>
        Each frame is as wide as its share of the <strong>candidate&apos;s</strong> samples. Its
        colour is how much its self share (samples with it on the CPU at that place in the
        stack) changed from the baseline, both profiles normalised to shares of their own
        samples first: <span className="flame-grew">red, it grew</span>;{" "}
        <span className="flame-shrank">blue, it shrank</span>; grey, no change. The deepest
        colour is the largest change of the graph. Frames the candidate no longer runs are not
        drawn: the table lists them.
      </p>
    </div>
  );
}
