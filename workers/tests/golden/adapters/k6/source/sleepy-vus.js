// latlab's k6 adapter golden files: 5 VUs for 6 s, each making a request and then sleeping
// 1.5 s (k6's documented "constant VUs with think time" shape); k6 interrupts the last
// sleeps at the end, so the points end well before k6's own test duration.
import http from "k6/http";
import { sleep } from "k6";

export const options = { vus: 5, duration: "6s" };

export default function () {
  sleep(0.4);
  http.get(`http://${__ENV.TARGET || "127.0.0.1:27431"}/`);
  sleep(1.1);
}
