import type { ChannelTest } from "../api/types";

/** What a channel's receiver answered a test with and how long it took (never its body): an
 * HTTP status, or an email channel's SMTP reply code. */
export function describeTest(result: ChannelTest, kind = "webhook"): string {
  const took = `${result.elapsed_ms.toFixed(0)} ms`;
  const protocol = kind === "email" ? "SMTP" : "HTTP";
  if (result.ok)
    return `Test message delivered (${protocol} ${String(result.status_code)}, ${took}).`;
  return `Test failed: ${result.error ?? "no answer"} (${took}).`;
}
