// latlab's k6 adapter golden files: 100 requests/s for 10 s against failing-server.go, which
// answers 95 % of them with a fast 500. k6's default trend stats (no p(99)).
import http from "k6/http";
import { check } from "k6";

export const options = {
  scenarios: {
    steady: {
      executor: "constant-arrival-rate",
      rate: 100,
      timeUnit: "1s",
      duration: "10s",
      preAllocatedVUs: 50,
      maxVUs: 300,
    },
  },
  thresholds: { http_req_failed: ["rate<0.01"], checks: ["rate>0.99"] },
};

export default function () {
  const response = http.get(`http://${__ENV.TARGET || "127.0.0.1:27432"}/`);
  check(response, {
    "status is 200": (r) => r.status === 200,
    "body is ok": (r) => r.body === "ok\n",
  });
}

// The data k6 hands to handleSummary, as JSON (only when SUMMARY_DATA is set; otherwise k6
// prints its own text summary).
export function handleSummary(data) {
  if (!__ENV.SUMMARY_DATA) {
    return undefined;
  }
  return { [__ENV.SUMMARY_DATA]: JSON.stringify(data, null, 2) };
}
