/**
 * Fuzzing every route from its request schema (tests/support/fuzz-bodies.ts), through the real app,
 * database and sandbox providers, as callers of every kind (each role, a stranger), with and
 * without an Idempotency-Key or x-request-id of its own, and with odd content types. The property: never a 5xx, never an error
 * logged; every answer carries `x-request-id` and is either the route's success body (HTTP 200) or
 * the one error shape with the status its code maps to.
 *
 * Seeded and reproducible: FUZZ_SEED (default below) picks the bodies; a failure prints the seed and
 * the path of the shrunk counterexample, and `FUZZ_SEED=<seed> FUZZ_PATH=<path> FUZZ_ROUTE=<route>`
 * replays exactly it (the message prints that command). FUZZ_RUNS sets the bodies per route per run:
 * by default 10,000, so every run of the suite sends each of the ten routes 10,000 bodies with the
 * fixed seed (100,000 requests for the file). The routes run concurrently, overlapping the
 * database's latency with the fuzzer's CPU; measured: 93 s wall (75 s CPU) on the two cores while
 * three other suites ran (load average 7). Most bodies are refused before the database. On PGlite
 * (no PostgreSQL 15 installed; CI always has it) the default is 1,000, about 40 s; see defaultRuns.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { TEST_API_KEY } from "../../devkit/app.ts";
import { expectAnswerInContract } from "../../devkit/contract.ts";
import { type FuzzBody, type FuzzContext, fuzzBodies, wireBody } from "../support/fuzz-bodies.ts";
import { errorShapeProblem } from "../support/responses.ts";
import { createRouteFixture, EINVOICING_ROUTES, type RouteFixture } from "../support/routes.ts";

/**
 * 10,000 on the real server; a tenth on PGlite (a machine without PostgreSQL 15; never CI), which
 * answers one query at a time; 100 under StrykerJS, which reruns this file for each mutant it covers.
 */
function defaultRuns(): number {
  if (process.env.STRYKER_MUTATOR_WORKER !== undefined) return 100;
  return inject("database").kind === "postgres" ? 10_000 : 1_000;
}

const FuzzEnv = z.object({
  FUZZ_SEED: z.coerce
    .number()
    .int()
    .min(-(2 ** 31))
    .max(2 ** 31 - 1)
    .default(20_261_122),
  FUZZ_RUNS: z.coerce.number().int().min(1).max(1_000_000).default(defaultRuns()),
  FUZZ_PATH: z
    .string()
    .regex(/^[0-9:]{1,4000}$/)
    .optional(),
  FUZZ_ROUTE: z.string().max(100).optional(),
});
const settings = FuzzEnv.parse(process.env);
const routes = EINVOICING_ROUTES.filter((r) => !settings.FUZZ_ROUTE || r.path === settings.FUZZ_ROUTE);

let fx: RouteFixture;
let context: FuzzContext;
let tokens: string[];

beforeAll(async () => {
  fx = await createRouteFixture();
  const { home, other } = fx;
  const known = await Promise.all([
    fx.pending(home),
    fx.pending(home),
    fx.transmitted(home),
    fx.creditNote(home, "emitida"),
    fx.creditNote(home, "error"),
    fx.debitNote(home, "emitida"),
    fx.debitNote(home, "error"),
    fx.pending(other),
  ]);
  context = {
    knownIds: [
      home.org.id,
      home.company.id,
      ...known.map((k) => (typeof k === "string" ? k : k.id)),
      // the invoices' lines, so a credit note's `lines` and `line_ids` can name lines that exist
      ...known.flatMap((k) => (typeof k === "object" && "lineIds" in k ? k.lineIds : [])),
      other.org.id,
      other.company.id,
    ],
    maxBodyBytes: fx.t.deps.config.http.maxBodyBytes,
  };
  tokens = await Promise.all(
    [home.admin, home.admin, home.operador, home.lector, other.admin].map((user) => fx.t.token(user)),
  );
});
afterAll(() => fx?.close());

/**
 * 502 and 504 are the contract's answers when a provider fails (DESIGN §4); the saved credentials
 * point at the sandbox, which does not fail here, so they are allowed only when the body names its
 * own provider `url` (the integration routes), which may well answer 404 or not be a provider.
 */
const PROVIDER_FAILURES = [502, 504];
const PROVIDER_CODES = ["provider_error", "provider_timeout"];
function providerMayFail(body: FuzzBody): boolean {
  const wire = wireBody(body);
  try {
    // decoded as the service decodes it (a byte-order mark is dropped)
    const value = JSON.parse(
      typeof wire === "string" ? wire.replace(/^\ufeff/, "") : new TextDecoder().decode(wire),
    );
    return typeof value?.url === "string";
  } catch {
    return false;
  }
}

/** Headers besides the body: who calls, its content type, and maybe an Idempotency-Key or x-request-id. */
const extras = fc.record({
  caller: fc.nat(),
  contentType: fc.oneof(
    { weight: 18, arbitrary: fc.constant("application/json") },
    { weight: 1, arbitrary: fc.constantFrom("application/json; charset=utf-8", "APPLICATION/JSON") },
    { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/jsonx", "") },
  ),
  requestId: fc.option(fc.string({ unit: fc.constantFrom(..." az09-_.:/\\%é".split("")), maxLength: 200 }), {
    freq: 6,
  }),
  idempotencyKey: fc.option(
    fc.string({ unit: fc.constantFrom(..." ~az09-_.:!".split("")), maxLength: 300 }),
    {
      freq: 4,
    },
  ),
});

describe.concurrent.each(routes)("POST $path, fuzzed from its schema", (route) => {
  it(`answers ${settings.FUZZ_RUNS} bodies without a 5xx, each in the success or the error shape`, async () => {
    const tallies = new Map<string, number>();
    const property = fc.asyncProperty(fuzzBodies(route.request, context), extras, async (body, extra) => {
      const headers: Record<string, string> = {
        apikey: TEST_API_KEY,
        authorization: `Bearer ${tokens[extra.caller % tokens.length]}`,
      };
      if (extra.contentType) headers["content-type"] = extra.contentType;
      if (extra.idempotencyKey !== null) headers["idempotency-key"] = extra.idempotencyKey;
      if (extra.requestId !== null) headers["x-request-id"] = extra.requestId;
      const logged = fx.t.logs.length;
      const response = await fx.t.app.request(`/einvoicing${route.path}`, {
        method: "POST",
        headers,
        body: wireBody(body),
      });
      const text = await response.clone().text();
      const answer = `${response.status} ${text.slice(0, 500)}`;
      // a status the route does not declare in docs/openapi.json, or a body off its schema, fails too
      await expectAnswerInContract(route.path, response);
      const providerFailed = providerMayFail(body) && PROVIDER_FAILURES.includes(response.status);
      if (response.status >= 500 && !providerFailed) throw new Error(`a 5xx: ${answer}`);
      // the routes run concurrently: this request's lines are those since it started, with its id
      const requestId = response.headers.get("x-request-id") ?? "(none)";
      const errors = fx.t.logs.slice(logged).filter((line) => {
        if (!line.includes(requestId)) return false;
        const { level, code } = JSON.parse(line);
        return level === "error" && !(providerFailed && PROVIDER_CODES.includes(code));
      });
      if (errors.length > 0) throw new Error(`logged an error: ${errors[0]?.slice(0, 500)} (${answer})`);
      if (!response.headers.get("x-request-id")) throw new Error(`no x-request-id: ${answer}`);
      if (response.status === 200) {
        const parsed = route.response.safeParse(JSON.parse(text));
        if (!parsed.success) throw new Error(`a 200 not in the route's shape: ${answer}`);
      } else {
        const problem = errorShapeProblem(response.status, response.headers, text);
        if (problem) throw new Error(`${problem}: ${answer}`);
      }
      const tally = `${response.status} ${response.status === 200 ? "" : JSON.parse(text).error.code}`;
      tallies.set(tally, (tallies.get(tally) ?? 0) + 1);
    });
    const details = await fc.check(property, {
      seed: settings.FUZZ_SEED,
      numRuns: settings.FUZZ_RUNS,
      ...(settings.FUZZ_PATH ? { path: settings.FUZZ_PATH } : {}),
    });
    if (details.failed) {
      const replay = `FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath} FUZZ_ROUTE=${route.path}`;
      throw new Error(
        `replay with ${replay} npx vitest run tests/http/fuzz.test.ts\n${fc.defaultReportMessage(details)}`,
      );
    }
    if (settings.FUZZ_PATH) return; // a replay runs one body
    // the generator is not degenerate: some bodies passed validation and membership, reaching the operation
    const reached = [...tallies].filter(([tally]) => !/^(400|401|403|413|415) /.test(tally));
    expect(reached.reduce((sum, [, n]) => sum + n, 0)).toBeGreaterThanOrEqual(settings.FUZZ_RUNS / 100);
  }, 600_000);
});
