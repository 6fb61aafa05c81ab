/**
 * A saved provider key that the provider no longer accepts (revoked, rotated at the provider): each
 * route that calls a provider for one document answers 422 `credential_rejected` — as
 * docs/openapi.json declares, which the test app's contract check holds every answer to — and the
 * document is left as it was.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Tenant } from "../../devkit/factories.ts";
import {
  createSandboxDeliver,
  createSandboxDocsgen,
  createSandboxProvider,
  createSandboxRouter,
} from "../../sandbox/index.ts";
import { sandboxSigners } from "../../sandbox/signers.ts";
import type { ProviderService } from "../../shared/ports/providers/errors.ts";

const PROVIDERS = "https://sandbox.provider.test";
const SERVICES: ProviderService[] = ["adapter-tax", "docsgen", "deliver"];
let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let token: string;
let invoiceId: string;
let creditNoteId: string;

const saveKey = (service: ProviderService, apiKey?: string) =>
  saveCredential(t.deps, tenant, { service, url: `${PROVIDERS}/${service}`, ...(apiKey ? { apiKey } : {}) });

// the sandbox signs AttachedDocuments with certificates it generates once per process (~0.4 s):
// generated before the timed provider calls that fetch them
beforeAll(() => sandboxSigners(), 60_000);
beforeAll(async () => {
  db = await createTestDatabase();
  const providers = createSandboxRouter({
    adapterTax: createSandboxProvider(),
    docsgen: createSandboxDocsgen(),
    deliver: createSandboxDeliver(),
  });
  t = await createTestApp(db, { env: { EINV_PROVIDER_TIMEOUT_MS: "1000" }, providerFetch: providers });
  tenant = await createTenant(db);
  for (const service of SERVICES) await saveKey(service);
  token = await t.token(tenant.operador);
  const invoice = await createInvoice(db, tenant.org, tenant.company);
  invoiceId = invoice.id;
  const sent = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoiceId] }, token);
  expect((await sent.json()).results[0].status).toBe("transmitida");
  const note = await t.post(
    "/credit-notes",
    { org_id: tenant.org.id, invoice_id: invoiceId, concept_code: "2", reason: "Anulación" },
    token,
  );
  const created = await note.json();
  expect(created.status).toBe("emitida");
  creditNoteId = created.credit_note_id;
});
afterEach(async () => {
  for (const service of SERVICES) await saveKey(service);
});
afterAll(() => db?.close());

const fiscalState = async () =>
  db.superuser(
    `select (select row(status, authority_code)::text from invoices where id = $1) as invoice,
            (select row(status, authority_code)::text from credit_notes where id = $2) as note`,
    [invoiceId, creditNoteId],
  );

describe("a saved key the provider refuses", () => {
  it.each([
    ["/refresh", "adapter-tax", () => ({ invoice_id: invoiceId })],
    ["/credit-notes/refresh", "adapter-tax", () => ({ credit_note_id: creditNoteId })],
    ["/representation", "docsgen", () => ({ invoice_id: invoiceId, regenerate: true })],
    ["/credit-notes/representation", "docsgen", () => ({ credit_note_id: creditNoteId, regenerate: true })],
    ["/deliver", "deliver", () => ({ invoice_id: invoiceId })],
  ] as const)(
    "makes %s answer 422 credential_rejected (%s key) and changes nothing",
    async (path, service, body) => {
      await saveKey(service, "sk_revoked_at_the_provider");
      const before = await fiscalState();
      const response = await t.post(path, { org_id: tenant.org.id, ...body() }, token);
      expect(response.status).toBe(422);
      const { error } = await response.json();
      expect(error.code).toBe("credential_rejected");
      expect(JSON.stringify(error)).not.toContain("sk_revoked_at_the_provider");
      const after = await fiscalState();
      expect({ invoice: after[0]?.invoice, note: after[0]?.note }).toEqual({
        invoice: before[0]?.invoice,
        note: before[0]?.note,
      });
    },
  );
});
