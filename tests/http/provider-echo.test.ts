/**
 * A provider that echoes the API key back in its successful answers (its free-text fields —
 * `message`, `errors[].message`, `provider_reference` — get " [key <the key>]" appended) must not get the key into anything the service stores or
 * answers: the /transmit, /refresh and /deliver answers, invoices.last_message, deliveries and
 * events — all readable by a lector.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApp } from "../../devkit/app.ts";
import { SANDBOX_KEY } from "../../devkit/credentials.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import { createInvoice, type Tenant } from "../../devkit/factories.ts";
import type { FetchLike } from "../../shared/providers/tax/client.ts";
import { openRouteSuite, sandboxProviders } from "../support/route-suite.ts";

let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let token: string;
let echoed = 0;

const FREE_TEXT = new Set(["message", "provider_reference"]);

/** The sandboxes, with the caller's bearer key appended to the free text of every JSON answer. */
function echoingKey(inner: FetchLike): FetchLike {
  const echo = (value: unknown, key: string): unknown => {
    if (Array.isArray(value)) return value.map((v) => echo(v, key));
    if (value && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [
          k,
          FREE_TEXT.has(k) && typeof v === "string" ? `${v} [key ${key}]` : echo(v, key),
        ]),
      );
    }
    return value;
  };
  return async (input, init) => {
    const response = await inner(input, init);
    const key = new Headers(init?.headers).get("authorization")?.replace(/^Bearer /, "") ?? "";
    if (!response.ok || !response.headers.get("content-type")?.includes("json")) return response;
    echoed++;
    const body = echo(await response.json(), key);
    return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
  };
}

beforeAll(async () => {
  ({ db, t, tenant, token } = await openRouteSuite({
    providerFetch: echoingKey(sandboxProviders()),
    credentials: "router",
  }));
});
afterAll(() => db?.close());

describe("a provider that echoes the API key in its successful answers", () => {
  it("never gets the key into an answer, an invoice, a delivery or an event", async () => {
    const [accepted, rejected] = [
      await createInvoice(db, tenant.org, tenant.company),
      await createInvoice(db, tenant.org, tenant.company),
    ];
    // the sandbox rejects this buyer (FAJ44b), with rule violations in `errors`
    await db.superuser(
      "update invoices set buyer_id_number = '999999999', buyer_check_digit = einv_private.nit_check_digit('999999999') where id = $1",
      [rejected.id],
    );

    const answers: string[] = [];
    const post = async (route: string, body: Record<string, unknown>) => {
      const response = await t.post(route, { org_id: tenant.org.id, ...body }, token);
      const text = await response.text();
      answers.push(text);
      return { status: response.status, text };
    };
    const transmit = await post("/transmit", { invoice_ids: [accepted.id, rejected.id] });
    expect(JSON.parse(transmit.text).results.map((r: { status: string }) => r.status)).toEqual([
      "transmitida",
      "error",
    ]);
    expect((await post("/refresh", { invoice_id: accepted.id })).status).toBe(200);
    expect((await post("/deliver", { invoice_id: accepted.id })).status).toBe(200);

    const stored = await db.superuser<{ text: string }>(
      `select coalesce(last_message, '') as text from public.invoices where org_id = $1
       union all select data::text from public.events where org_id = $1
       union all select coalesce(message, '') || ' ' || coalesce(provider_reference, '')
         from public.deliveries where org_id = $1`,
      [tenant.org.id],
    );
    const everything = [...answers, ...stored.map((r) => r.text)].join("\n");
    expect(echoed).toBeGreaterThanOrEqual(4); // submit, query, send: the echo really happened
    expect(everything).toContain("[key [redacted]]");
    expect(everything).not.toContain(SANDBOX_KEY);
  });
});
