// latlab's k6 adapter golden files: a script with 230 custom Trend metrics (a real project's
// summary with its custom trends holds a few hundred metrics), 50 requests/s for 4 s against
// server.go.
import http from "k6/http";
import { Trend } from "k6/metrics";

const TRENDS = 230;
const trends = [];
for (let i = 0; i < TRENDS; i++) {
  trends.push(new Trend(`step_${String(i).padStart(3, "0")}_duration`, true));
}

export const options = {
  scenarios: {
    steady: {
      executor: "constant-arrival-rate",
      rate: 50,
      timeUnit: "1s",
      duration: "4s",
      preAllocatedVUs: 10,
    },
  },
};

export default function () {
  const response = http.get(`http://${__ENV.TARGET || "127.0.0.1:27431"}/`);
  for (let i = 0; i < TRENDS; i++) {
    trends[i].add(response.timings.duration * (1 + i / 100));
  }
}

export function handleSummary(data) {
  if (!__ENV.SUMMARY_DATA) {
    return undefined;
  }
  return { [__ENV.SUMMARY_DATA]: JSON.stringify(data, null, 2) };
}
