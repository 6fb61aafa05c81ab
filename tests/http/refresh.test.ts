/** POST /refresh through the real app and database, with the sandbox provider at the edge. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestApp } from "../../devkit/app.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import { createInvoice, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { createSandboxProvider, type SandboxProvider } from "../../sandbox/provider.ts";
import { kindsOf } from "../support/document-kinds.ts";
import { openRouteSuite } from "../support/route-suite.ts";

let db: TestDatabase;
let t: TestApp;
let sandbox: SandboxProvider;
let tenant: Tenant;
let token: string;

beforeAll(async () => {
  sandbox = createSandboxProvider();
  ({ db, t, tenant, token } = await openRouteSuite({
    env: { EINV_PROVIDER_TIMEOUT_MS: "300" },
    providerFetch: sandbox.fetch,
  }));
});
afterAll(() => db?.close());
beforeEach(() => sandbox.reset());

const refresh = (invoice: Pick<Invoice, "id">, as = token) =>
  t.post("/refresh", { org_id: tenant.org.id, invoice_id: invoice.id }, as);
const transmit = async (invoice: Invoice) =>
  (await (await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token)).json())
    .results[0];
const fresh = () => createInvoice(db, tenant.org, tenant.company);

/** The sandbox's answer to the submit about to be made (about `reference`, when it is known). */
const failing = (fail: "hang" | "error") => (reference?: string) =>
  sandbox.setKnobs({
    ...(fail === "hang" ? { hangMs: 2_000 } : {}),
    failNext: [reference ? { kind: fail, reference } : { kind: fail, on: "submit" }],
  });
const suite = () => ({ db, t, tenant, token });

describe.each(kindsOf("refresh"))("POST %s (%s)", (_route, _name, kind) => {
  const refreshOf = (id: string, as = token) =>
    t.post(kind.routes.refresh, { org_id: tenant.org.id, [kind.idField]: id }, as);
  const stateOf = async (id: string) =>
    (await db.superuser<{ status: string }>(`select status from ${kind.table} where id = $1`, [id]))[0]
      ?.status;

  it("records an acceptance the transmission could not see (its answer timed out)", async () => {
    const sent = await kind.send(suite(), failing("hang"));
    expect(sent.status).toBe("en_proceso");
    const response = await refreshOf(sent.id);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({
      [kind.idField]: sent.id,
      status: kind.accepted,
      code: "accepted",
      message: `the authority accepted this ${kind.name}`,
      authority_message: expect.stringMatching(/ha sido autorizada\.$/),
    });
    expect(body.authority_code).toMatch(/^[0-9a-f]{96}$/);
    expect(Date.parse(body.checked_at)).not.toBeNaN();
    const events = await db.superuser<{
      kind: string;
      data: { from: string; to: string; changed: boolean };
    }>("select kind, data from events where document_id = $1 and kind = 'status_refreshed'", [sent.id]);
    expect(events[0]?.data).toMatchObject({ from: "en_proceso", to: kind.accepted, changed: true });
    expect(sandbox.submissions.filter((s) => s.reference === sent.id)).toHaveLength(1);
  });

  it("marks an idle en_proceso document the provider never received as error, to be reissued", async () => {
    const sent = await kind.send(suite(), failing("error"));
    expect(sent.status).toBe("en_proceso");
    const body = await (await refreshOf(sent.id)).json();
    expect(body).toMatchObject({
      status: "error",
      code: "never_received",
      message: expect.stringMatching(kind.howToResend),
    });
    expect(body).not.toHaveProperty("authority_message");
  });

  it("leaves a document the provider has no record of as it is, and says so", async () => {
    const sent = await kind.send(suite());
    sandbox.reset(); // the provider forgot it: its books start empty
    const body = await (await refreshOf(sent.id)).json();
    expect(body).toMatchObject({
      status: kind.accepted,
      code: "unknown_to_provider",
      message: `the provider has no record of this ${kind.name}; its status is unchanged`,
    });
    expect(await stateOf(sent.id)).toBe(kind.accepted);
  });

  it("keeps a rejection's code and rules when the provider has no record of the document", async () => {
    const sent = await kind.send(suite());
    // as the authority would have left it: rejected, with its rule
    const rules = [{ rule: "FAJ44b", kind: "rechazo", message: "no está registrado en el RUT" }];
    await db.superuser(
      `update ${kind.table} set status = 'error', last_code = 'rejected', last_message = 'rejected',
              authority_message = 'Documento rechazado', authority_rules = $2::text::jsonb where id = $1`,
      [sent.id, JSON.stringify(rules)],
    );
    sandbox.reset(); // the provider forgot it
    const body = await (await refreshOf(sent.id)).json();
    expect(body).toMatchObject({ status: "error", code: "unknown_to_provider" });
    expect(body).not.toHaveProperty("authority_rules");
    const [kept] = await db.superuser<{
      last_code: string;
      authority_rules: unknown;
      status_checked_at: string;
    }>(`select last_code, authority_rules, status_checked_at from ${kind.table} where id = $1`, [sent.id]);
    expect(kept).toMatchObject({ last_code: "rejected", authority_rules: rules });
    expect(kept?.status_checked_at).toBeTruthy();
  });

  it("leaves an accepted document as it is when the authority agrees", async () => {
    const sent = await kind.send(suite());
    const body = await (await refreshOf(sent.id)).json();
    expect(body.status).toBe(kind.accepted);
  });

  it("answers 504 when the provider does not answer, and 502 when it fails; nothing changes", async () => {
    const sent = await kind.send(suite(), failing("hang"));
    sandbox.setKnobs({ failNext: [{ kind: "hang", on: "query", reference: sent.id }] });
    const timedOut = await refreshOf(sent.id);
    expect(timedOut.status).toBe(504);
    expect((await timedOut.json()).error.code).toBe("provider_timeout");
    sandbox.setKnobs({ failNext: [{ kind: "error", on: "query", reference: sent.id }] });
    const failed = await refreshOf(sent.id);
    expect(failed.status).toBe(502);
    expect((await failed.json()).error.code).toBe("provider_error");
    expect(await stateOf(sent.id)).toBe("en_proceso");
  });

  it("answers 404 for another organization's document and 403 to a lector", async () => {
    expect((await refreshOf(await kind.foreign(suite()))).status).toBe(404);
    expect((await refreshOf(await kind.any(suite()), await t.token(tenant.lector))).status).toBe(403);
  });

  it(`answers 400 without a valid ${kind.idField}`, async () => {
    const response = await t.post(kind.routes.refresh, { org_id: tenant.org.id, [kind.idField]: "x" }, token);
    expect(response.status).toBe(400);
    expect((await response.json()).error.details[0].field).toBe(kind.idField);
  });
});

describe("POST /refresh, what only invoices have", () => {
  it("follows a document the authority was still processing", async () => {
    const invoice = await fresh();
    await db.superuser(
      "update invoice_lines set description = 'Servicio PENDIENTE de validar' where invoice_id = $1",
      [invoice.id],
    );
    expect(await transmit(invoice)).toMatchObject({ status: "en_proceso", code: "validation_pending" });
    expect(await (await refresh(invoice)).json()).toMatchObject({ status: "transmitida", code: "accepted" });
  });

  it("answers 409 for an invoice that was never sent", async () => {
    const response = await refresh(await fresh());
    expect(response.status).toBe(409);
    expect((await response.json()).error).toMatchObject({
      code: "invalid_state",
      message: expect.stringMatching(/never sent/),
    });
  });
});
