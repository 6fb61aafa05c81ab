/**
 * What keeps /deliver from being an open mail relay, and a repeat from mailing again, through the real app
 * and database with the sandbox deliver provider as the oracle of what was e-mailed:
 *
 * - hourly limits per document and per organization, counted in the `deliveries` table (so they
 *   hold across function instances), answered 429 `rate_limited` with `Retry-After` in seconds;
 * - a repeat of a delivery (same document, same address) while one is `pendiente` or within a
 *   minute of one sent answers that delivery instead of e-mailing again.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import {
  createSandboxDeliver,
  createSandboxDocsgen,
  createSandboxProvider,
  createSandboxRouter,
  type SandboxDeliver,
} from "../../sandbox/index.ts";
import { sandboxSigners } from "../../sandbox/signers.ts";

const PROVIDERS = "https://sandbox.provider.test";
let db: TestDatabase;
let mail: SandboxDeliver;
let providers: ReturnType<typeof createSandboxRouter>;
/** The default limits. */
let t: TestApp;
/** An organization limit of 4 an hour. */
let small: TestApp;

// the sandbox signs AttachedDocuments with certificates it generates once per process (~0.4 s):
// generated before the timed provider calls that fetch them
beforeAll(() => sandboxSigners(), 60_000);
beforeAll(async () => {
  db = await createTestDatabase();
  mail = createSandboxDeliver();
  providers = createSandboxRouter({
    adapterTax: createSandboxProvider(),
    docsgen: createSandboxDocsgen(),
    deliver: mail,
  });
  t = await createTestApp(db, { env: { EINV_PROVIDER_TIMEOUT_MS: "1000" }, providerFetch: providers });
  small = await createTestApp(db, {
    env: { EINV_PROVIDER_TIMEOUT_MS: "1000", EINV_DELIVER_LIMIT_PER_ORG: "4" },
    providerFetch: providers,
  });
});
afterAll(() => db?.close());
beforeEach(() => mail.reset());

async function tenantWithProviders(): Promise<Tenant> {
  const tenant = await createTenant(db);
  await saveCredential(t.deps, tenant, { url: `${PROVIDERS}/adapter-tax` });
  await saveCredential(t.deps, tenant, { url: `${PROVIDERS}/deliver`, service: "deliver" });
  return tenant;
}

async function transmitted(tenant: Tenant): Promise<Invoice> {
  const invoice = await createInvoice(db, tenant.org, tenant.company);
  const token = await t.token(tenant.operador);
  const response = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
  expect((await response.json()).results[0].status).toBe("transmitida");
  return invoice;
}

const deliverWith =
  (app: TestApp, tenant: Tenant) =>
  async (invoice: Invoice, extra: Record<string, unknown> = {}) =>
    app.post(
      "/deliver",
      { org_id: tenant.org.id, invoice_id: invoice.id, ...extra },
      await app.token(tenant.operador),
    );

const sentTo = (invoice: Invoice) =>
  mail.messages.filter((m) => m.subject.includes(invoice.number)).flatMap((m) => m.to);

function expectRateLimited(response: Response, body: { error: { code: string; message: string } }) {
  expect(response.status).toBe(429);
  expect(body.error.code).toBe("rate_limited");
  const retryAfter = Number(response.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter)).toBe(true);
  // the oldest counted send leaves the hour's window then
  expect(retryAfter).toBeGreaterThan(3_500);
  expect(retryAfter).toBeLessThanOrEqual(3_600);
}

describe("/deliver limits", () => {
  it("mails one invoice to 5 addresses in an hour, then answers 429 rate_limited with Retry-After (the issue's 15 in a row)", async () => {
    const tenant = await tenantWithProviders();
    const deliver = deliverWith(t, tenant);
    const invoice = await transmitted(tenant);
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 1; i <= 15; i++) {
      const response = await deliver(invoice, { to: `destino${i}@arbitrario.example` });
      statuses.push(response.status);
      if (response.status === 429 && !limited) {
        limited = response;
        expectRateLimited(response, await response.json());
      }
    }
    expect(statuses).toEqual([...Array(5).fill(200), ...Array(10).fill(429)]);
    expect(limited?.headers.get("retry-after")).toBeTruthy();
    expect(sentTo(invoice)).toHaveLength(5);
    const rows = await db.superuser("select id from deliveries where document_id = $1", [invoice.id]);
    expect(rows).toHaveLength(5);
  });

  it("counts the hour as a sliding window: once the oldest send is an hour old, one more goes out", async () => {
    const tenant = await tenantWithProviders();
    const deliver = deliverWith(t, tenant);
    const invoice = await transmitted(tenant);
    for (let i = 1; i <= 5; i++) {
      expect((await deliver(invoice, { to: `ventana${i}@cliente.example` })).status).toBe(200);
    }
    expect((await deliver(invoice, { to: "ventana6@cliente.example" })).status).toBe(429);
    // the clock running on: the first send is now an hour and a second old
    await db.superuser(
      `update deliveries set created_at = now() - interval '1 hour 1 second'
        where id = (select id from deliveries where document_id = $1 order by created_at limit 1)`,
      [invoice.id],
    );
    expect((await deliver(invoice, { to: "ventana6@cliente.example" })).status).toBe(200);
    expect((await deliver(invoice, { to: "ventana7@cliente.example" })).status).toBe(429);
    expect(sentTo(invoice)).toHaveLength(6);
  });

  it("limits an organization's deliveries per hour across its invoices, and no other organization's", async () => {
    const tenant = await tenantWithProviders();
    const other = await tenantWithProviders();
    const deliver = deliverWith(small, tenant);
    const invoices = [];
    for (let i = 0; i < 5; i++) invoices.push(await transmitted(tenant));
    for (const invoice of invoices.slice(0, 4)) expect((await deliver(invoice)).status).toBe(200);
    const refused = await deliver(invoices[4] as Invoice);
    expectRateLimited(refused, await refused.json());
    expect(mail.messages).toHaveLength(4);

    const theirs = await transmitted(other);
    expect((await deliverWith(small, other)(theirs)).status).toBe(200);
    expect(mail.messages).toHaveLength(5);
  });

  it("counts a credit note apart from its invoice (two documents), and both in the organization's limit", async () => {
    const tenant = await tenantWithProviders();
    const deliver = deliverWith(t, tenant);
    const invoice = await transmitted(tenant);
    for (let i = 1; i <= 5; i++) {
      expect((await deliver(invoice, { to: `factura${i}@cliente.example` })).status).toBe(200);
    }
    expect((await deliver(invoice, { to: "factura6@cliente.example" })).status).toBe(429);
    const as = await t.token(tenant.operador);
    const note = await (
      await t.post(
        "/credit-notes",
        { org_id: tenant.org.id, invoice_id: invoice.id, concept_code: "2", reason: "Anulación" },
        as,
      )
    ).json();
    expect(note.status).toBe("emitida");
    const deliverNote = async (to: string, app = t) =>
      app.post(
        "/credit-notes/deliver",
        { org_id: tenant.org.id, credit_note_id: note.credit_note_id, to },
        await app.token(tenant.operador),
      );
    const statuses: number[] = [];
    for (let i = 1; i <= 6; i++) statuses.push((await deliverNote(`nota${i}@cliente.example`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // the organization's limit (4 an hour in `small`) counts the invoice's and the note's together
    const refused = await deliverNote("otra@cliente.example", small);
    expectRateLimited(refused, await refused.json());
  });

  it("has the indexes the counts read: deliveries by (document_id, created_at) and by (org_id, created_at)", async () => {
    const indexes = await db.superuser<{ indexname: string; indexdef: string }>(
      "select indexname, indexdef from pg_indexes where tablename = 'deliveries' order by indexname",
    );
    const defs = indexes.map((i) => i.indexdef.replace(/^.* USING btree /, ""));
    expect(defs).toContain("(document_id, created_at)");
    expect(defs).toContain("(org_id, created_at)");
  });
});

describe("/deliver repeats", () => {
  it("answers a repeat to the same address within a minute with the delivery already sent, e-mailing once", async () => {
    const tenant = await tenantWithProviders();
    const deliver = deliverWith(t, tenant);
    const invoice = await transmitted(tenant);
    const first = await (await deliver(invoice)).json();
    expect(first.status).toBe("enviada");
    const again = await deliver(invoice, { to: "CLIENTE@test.example" });
    expect(again.status).toBe(200);
    expect(first).toMatchObject({
      code: "sent",
      provider_message: expect.stringMatching(/^Mensaje enviado/),
    });
    expect(await again.json()).toMatchObject({
      delivery_id: first.delivery_id,
      status: "enviada",
      code: "already_sent",
      message: expect.stringMatching(/already sent to cliente@test\.example moments ago/),
      provider_message: first.provider_message,
    });
    expect(mail.received).toHaveLength(1);

    // to another address it is a new delivery; after the minute, to the same one too
    expect((await (await deliver(invoice, { to: "otra@cliente.example" })).json()).delivery_id).not.toBe(
      first.delivery_id,
    );
    // the clock running on (the touch trigger would stamp the update with now())
    await db.superuser("alter table deliveries disable trigger deliveries_touch");
    await db.superuser("update deliveries set updated_at = now() - interval '61 seconds' where id = $1", [
      first.delivery_id,
    ]);
    await db.superuser("alter table deliveries enable trigger deliveries_touch");
    const later = await (await deliver(invoice)).json();
    expect(later).toMatchObject({ status: "enviada" });
    expect(later.delivery_id).not.toBe(first.delivery_id);
    expect(mail.messages).toHaveLength(3);
  });

  it("answers a repeat while a delivery to that address is pendiente with that delivery, e-mailing nothing", async () => {
    const tenant = await tenantWithProviders();
    const deliver = deliverWith(t, tenant);
    const invoice = await transmitted(tenant);
    // a delivery whose outcome was never recorded (the function died after it began)
    const [open] = await db.superuser<{ id: string }>(
      `insert into deliveries (org_id, document_type, document_id, recipient) values ($1, 'invoice', $2, 'cliente@test.example')
       returning id`,
      [tenant.org.id, invoice.id],
    );
    const response = await deliver(invoice);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({
      delivery_id: open?.id,
      to: "cliente@test.example",
      status: "pendiente",
      code: "delivery_in_progress",
    });
    expect(body.message).toMatch(/already/);
    expect(mail.received).toHaveLength(0);
    const rows = await db.superuser("select status from deliveries where document_id = $1", [invoice.id]);
    expect(rows).toEqual([{ status: "pendiente" }]);
  });

  it("keeps no `pendiente` answer under its Idempotency-Key: a retry once the delivery settled answers how it ended", async () => {
    const tenant = await tenantWithProviders();
    const invoice = await transmitted(tenant);
    const [open] = await db.superuser<{ id: string }>(
      `insert into deliveries (org_id, document_type, document_id, recipient) values ($1, 'invoice', $2, 'cliente@test.example')
       returning id`,
      [tenant.org.id, invoice.id],
    );
    const keyed = async () =>
      t.post("/deliver", { org_id: tenant.org.id, invoice_id: invoice.id }, await t.token(tenant.operador), {
        "Idempotency-Key": "deliver-once-settled",
      });
    expect(await (await keyed()).json()).toMatchObject({ delivery_id: open?.id, status: "pendiente" });
    // reconcile settles it (the provider had taken it)
    await db.superuser("update deliveries set status = 'enviada', message = 'Entregado.' where id = $1", [
      open?.id ?? "",
    ]);
    const retried = await keyed();
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(await retried.json()).toMatchObject({
      delivery_id: open?.id,
      status: "enviada",
      code: "already_sent",
      provider_message: "Entregado.",
    });
    // and that answer, final, is kept
    const again = await keyed();
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toMatchObject({ delivery_id: open?.id, status: "enviada" });
    expect(mail.received).toHaveLength(0);
  });
});
