/** POST /refresh through the real app and database, with the sandbox provider at the edge. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestApp } from "../../devkit/app.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { createSandboxProvider, type SandboxProvider } from "../../sandbox/provider.ts";
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
const statusOf = async (invoice: Invoice) =>
  (await db.superuser<{ status: string }>("select status from invoices where id = $1", [invoice.id]))[0]
    ?.status;

describe("POST /refresh", () => {
  it("records an acceptance the transmission could not see (its answer timed out)", async () => {
    const invoice = await fresh();
    sandbox.setKnobs({ hangMs: 2_000, failNext: [{ kind: "hang", reference: invoice.id }] });
    expect((await transmit(invoice)).status).toBe("en_proceso");
    const response = await refresh(invoice);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ invoice_id: invoice.id, status: "transmitida" });
    expect(body.authority_code).toMatch(/^[0-9a-f]{96}$/);
    expect(Date.parse(body.checked_at)).not.toBeNaN();
    const events = await db.superuser<{ kind: string; data: { from: string; to: string; changed: boolean } }>(
      "select kind, data from events where document_id = $1 and kind = 'status_refreshed'",
      [invoice.id],
    );
    expect(events[0]?.data).toMatchObject({ from: "en_proceso", to: "transmitida", changed: true });
    expect(sandbox.submissions.filter((s) => s.reference === invoice.id)).toHaveLength(1);
  });

  it("follows a document the authority was still processing", async () => {
    const invoice = await fresh();
    await db.superuser(
      "update invoice_lines set description = 'Servicio PENDIENTE de validar' where invoice_id = $1",
      [invoice.id],
    );
    expect((await transmit(invoice)).status).toBe("en_proceso");
    expect((await (await refresh(invoice)).json()).status).toBe("transmitida");
  });

  it("marks an idle en_proceso invoice the provider never received as error, to be reissued", async () => {
    const invoice = await fresh();
    sandbox.setKnobs({ failNext: [{ kind: "error", reference: invoice.id }] });
    expect((await transmit(invoice)).status).toBe("en_proceso");
    const body = await (await refresh(invoice)).json();
    expect(body).toMatchObject({ status: "error", message: expect.stringMatching(/reissue: true/) });
  });

  it("leaves a transmitted invoice as it is when the authority agrees", async () => {
    const invoice = await fresh();
    await transmit(invoice);
    const body = await (await refresh(invoice)).json();
    expect(body.status).toBe("transmitida");
  });

  it("answers 504 when the provider does not answer, and 502 when it fails; nothing changes", async () => {
    const invoice = await fresh();
    sandbox.setKnobs({ hangMs: 2_000, failNext: [{ kind: "hang", reference: invoice.id }] });
    await transmit(invoice);
    sandbox.setKnobs({ failNext: [{ kind: "hang", on: "query", reference: invoice.id }] });
    const timedOut = await refresh(invoice);
    expect(timedOut.status).toBe(504);
    expect((await timedOut.json()).error.code).toBe("provider_timeout");
    sandbox.setKnobs({ failNext: [{ kind: "error", on: "query", reference: invoice.id }] });
    const failed = await refresh(invoice);
    expect(failed.status).toBe(502);
    expect((await failed.json()).error.code).toBe("provider_error");
    expect(await statusOf(invoice)).toBe("en_proceso");
  });

  it("answers 409 for an invoice that was never sent", async () => {
    const response = await refresh(await fresh());
    expect(response.status).toBe(409);
    expect((await response.json()).error).toMatchObject({
      code: "invalid_state",
      message: expect.stringMatching(/never sent/),
    });
  });

  it("answers 404 for another organization's invoice and 403 to a lector", async () => {
    const other = await createTenant(db);
    const foreign = await createInvoice(db, other.org, other.company, { status: "transmitida" });
    expect((await refresh(foreign)).status).toBe(404);
    expect((await refresh(await fresh(), await t.token(tenant.lector))).status).toBe(403);
  });

  it("answers 400 without a valid invoice_id", async () => {
    const response = await t.post("/refresh", { org_id: tenant.org.id, invoice_id: "x" }, token);
    expect(response.status).toBe(400);
    expect((await response.json()).error.details[0].field).toBe("invoice_id");
  });
});
