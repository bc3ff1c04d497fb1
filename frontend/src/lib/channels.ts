import type { ChannelTest } from "../api/types";

/** What a channel's receiver answered a test with and how long it took (never its body). */
export function describeTest(result: ChannelTest): string {
  const took = `${result.elapsed_ms.toFixed(0)} ms`;
  if (result.ok) return `Test message delivered (HTTP ${String(result.status_code)}, ${took}).`;
  return `Test failed: ${result.error ?? "no answer"} (${took}).`;
}
