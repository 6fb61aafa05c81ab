// Run under Node by bench/load.ts: one autocannon run, described by a JSON argument, printed as
// JSON. `ids` (optional): a file of invoice ids, one a line; each request then transmits the next.
// `warmup` (optional): `{ connections, duration }` of load sent first and left out of the figures.
import { readFileSync } from "node:fs";
import autocannon from "autocannon";

const spec = JSON.parse(process.argv[2] ?? "{}");
const ids = spec.ids ? readFileSync(spec.ids, "utf8").split("\n").filter(Boolean) : null;
let next = 0;
const started = performance.now();
const instance = autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.duration,
  // a number of requests instead of a duration
  ...(spec.amount ? { amount: spec.amount } : {}),
  method: "POST",
  headers: spec.headers,
  body: spec.body,
  // not measured: lets the server's JIT and connections settle before sampling starts
  ...(spec.warmup ? { warmup: spec.warmup } : {}),
  requests: ids
    ? [
        {
          method: "POST",
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({ ...spec.bodyObject, invoice_ids: [ids[next++ % ids.length]] }),
          }),
        },
      ]
    : undefined,
});
// a run of a number of requests: its rate over its real length, first request to last answer;
// autocannon's average counts whole one-second samples, the last one partial (500 answers in 0.6 s
// read as 500 req/s)
let lastAnswer = started;
instance.on("response", () => {
  lastAnswer = performance.now();
});
const result = await instance;
console.log(
  JSON.stringify({
    requests: result.requests.total,
    rps: spec.amount ? result.requests.total / ((lastAnswer - started) / 1000) : result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes: result.statusCodeStats,
  }),
);
