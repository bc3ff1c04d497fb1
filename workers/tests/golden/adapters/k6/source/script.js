// latlab's k6 adapter golden files: 200 requests/s for 5 s against the local server.
import http from "k6/http";
import { check } from "k6";

export const options = {
  scenarios: {
    steady: {
      executor: "constant-arrival-rate",
      rate: 200,
      timeUnit: "1s",
      duration: "5s",
      preAllocatedVUs: 20,
    },
  },
  thresholds: { http_req_duration: ["p(99)<500"] },
};

export default function () {
  const response = http.get(`http://${__ENV.TARGET || "127.0.0.1:18391"}/`);
  check(response, { "status is 200": (r) => r.status === 200 });
}

// The data k6 hands to handleSummary, as JSON (the other summary format latlab reads).
export function handleSummary(data) {
  return { [__ENV.SUMMARY_DATA || "handle-summary.json"]: JSON.stringify(data, null, 2) };
}
