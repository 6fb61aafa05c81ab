/**
 * `einv_document_claim_sending`: the claim and the credentials of what it sends, in one round trip;
 * and the provider directory primed with them reads nothing more.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createCompany, createInvoice, createTenant, type Tenant } from "../../devkit/factories.ts";
import { createSandboxProvider } from "../../sandbox/provider.ts";
import type { CredentialRow } from "../../shared/kernel/rows.ts";
import type { DbScope } from "../../shared/ports/db/port.ts";
import { createProviderDirectory } from "../../shared/providers/directory.ts";

let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let stranger: Tenant;

beforeAll(async () => {
  db = await createTestDatabase();
  t = await createTestApp(db);
  tenant = await createTenant(db);
  stranger = await createTenant(db);
  await saveCredential(t.deps, tenant);
  await saveCredential(t.deps, tenant, { service: "deliver" });
  await saveCredential(t.deps, stranger);
});
afterAll(() => db?.close());

const claimSending = (org: Tenant, ids: string[]) =>
  t.deps.db.asService().call("einv_document_claim_sending", {
    p_org_id: org.org.id,
    p_kind: "invoice",
    p_document_ids: ids,
    p_reissue: false,
    p_actor_id: org.operador.id,
    p_lease_seconds: 60,
    p_issued_at: new Date().toISOString(),
    p_service: "adapter-tax",
  });

describe("einv_document_claim_sending", () => {
  it("claims like einv_document_claim and reads the credential of each company and environment it sends in", async () => {
    const bare = await createCompany(db, tenant.org); // no credential
    const [a, b, c] = [
      await createInvoice(db, tenant.org, tenant.company),
      await createInvoice(db, tenant.org, tenant.company),
      await createInvoice(db, tenant.org, bare),
    ];
    const sent = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const theirs = await createInvoice(db, stranger.org, stranger.company);
    const { entries, credentials } = await claimSending(tenant, [a.id, sent.id, b.id, theirs.id, c.id]);

    expect(entries.map((e) => [e.document_id, e.action])).toEqual([
      [a.id, "send"],
      [sent.id, "skip"],
      [b.id, "send"],
      [theirs.id, "skip"],
      [c.id, "send"],
    ]);
    // one row: the tenant's company, adapter-tax, uat — not the deliver one, not the stranger's
    expect(credentials.map((r: CredentialRow) => [r.org_id, r.company_id, r.service, r.environment])).toEqual(
      [[tenant.org.id, tenant.company.id, "adapter-tax", "uat"]],
    );
    expect(credentials[0]?.api_key_ciphertext).toMatch(/^v1:/);
    const [row] = await db.superuser<{ status: string }>("select status from invoices where id = $1", [
      theirs.id,
    ]);
    expect(row?.status).toBe("pendiente");
  });

  it("reads no credential when nothing is sent", async () => {
    const sent = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    expect((await claimSending(tenant, [sent.id])).credentials).toEqual([]);
  });
});

describe("a provider directory primed with a claim's credentials", () => {
  it("builds the clients from them and asks the database for nothing", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const { entries, credentials } = await claimSending(tenant, [invoice.id]);
    const real = t.deps.db.asService();
    const asked: string[] = [];
    const counting: DbScope = {
      call: (fn, args) => {
        asked.push(fn);
        return real.call(fn, args);
      },
    };
    const directory = createProviderDirectory({
      serviceDb: counting,
      secretBox: t.deps.secretBox,
      timeoutMs: 2_000,
      allowPrivateUrls: false,
      fetch: createSandboxProvider().fetch,
    });
    const other = await createCompany(db, tenant.org);
    directory.prime(
      "adapter-tax",
      tenant.org.id,
      [
        ...entries.flatMap((e) => (e.action === "skip" ? [] : [e])),
        { company_id: other.id, environment: "uat" },
      ],
      credentials,
    );
    await expect(directory.taxAdapter(tenant.org.id, tenant.company.id, "uat")).resolves.toBeDefined();
    // primed as having none: the same answer as a read would give
    await expect(directory.taxAdapter(tenant.org.id, other.id, "uat")).rejects.toThrow(
      /no adapter-tax credential/,
    );
    expect(asked).toEqual([]);
    // what was not primed is still read
    await expect(directory.taxAdapter(tenant.org.id, tenant.company.id, "prd")).rejects.toThrow();
    expect(asked).toEqual(["einv_credential_get"]);
  });
});
