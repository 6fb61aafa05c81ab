/**
 * A provider's own words about its failure travel beside the service's English sentence, never
 * inside it: `provider_message` in a document's result, in an error answer and in a credential
 * check, while `message` (and what is stored) is ours alone. Once, a provider's text followed our
 * sentence in `message` ("…refused the document submission (HTTP 422): campo inválido").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApp } from "../../devkit/app.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import { createInvoice, type Tenant } from "../../devkit/factories.ts";
import { openRouteSuite } from "../support/route-suite.ts";

const REFUSED = "campo buyer.email inválido";
const DOWN = "DIAN no responde";
const REVOKED = "llave revocada";

let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let token: string;

/** A provider that refuses every submission (422), fails every query (503) and every key (401), in its own words. */
const provider = async (input: RequestInfo | URL, init?: RequestInit) => {
  const request = new Request(input, init);
  const path = new URL(request.url).pathname;
  const said = (status: number, code: string, message: string) =>
    Response.json({ error: { code, message } }, { status });
  if (path.endsWith("/credentials/check")) return said(401, "unauthorized", REVOKED);
  if (request.method === "POST" && path.endsWith("/documents"))
    return said(422, "validation_failed", REFUSED);
  return said(503, "unavailable", DOWN);
};

beforeAll(async () => {
  ({ db, t, tenant, token } = await openRouteSuite({ providerFetch: provider }));
});
afterAll(() => db?.close());

describe("a provider's own words", () => {
  it("go beside a transmission's message, which is ours, and are not stored", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const response = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
    const [result] = (await response.json()).results;
    expect(result).toMatchObject({
      code: "provider_refused",
      message:
        "not sent: the provider refused it: The tax provider refused the document submission (HTTP 422).",
      provider_message: REFUSED,
    });
    const [row] = await db.superuser<{ last_message: string }>(
      "select last_message from invoices where id = $1",
      [invoice.id],
    );
    expect(row?.last_message).not.toContain(REFUSED);
  });

  it("go beside an error answer's message", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "en_proceso" });
    const response = await t.post("/refresh", { org_id: tenant.org.id, invoice_id: invoice.id }, token);
    expect(response.status).toBe(502);
    const { error } = await response.json();
    expect(error).toMatchObject({
      code: "provider_error",
      message: "The tax provider failed on the document query (HTTP 503).",
      provider_message: DOWN,
    });
  });

  it("go beside a credential check's message, tested or refused at save", async () => {
    const admin = await t.token(tenant.admin);
    const fields = {
      org_id: tenant.org.id,
      company_id: tenant.company.id,
      service: "deliver",
      environment: "prd",
      api_key: "a-key-that-was-revoked",
      url: "https://sandbox.provider.test/deliver",
    };
    const tested = await (await t.post("/integrations/test", fields, admin)).json();
    expect(tested).toMatchObject({
      ok: false,
      message: "The provider rejected the API key (HTTP 401).",
      provider_message: REVOKED,
    });
    const saved = await t.post("/integrations/save", fields, admin);
    expect(saved.status).toBe(422);
    const { error } = await saved.json();
    expect(error).toMatchObject({
      code: "credential_rejected",
      message: "The key was not saved: The provider rejected the API key (HTTP 401).",
      provider_message: REVOKED,
    });
  });
});
