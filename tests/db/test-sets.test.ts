/**
 * Habilitación's test-set documents on the real database (…_test_sets.sql, docs/adr/0011): the set's
 * invoices numbered from 994000001 apart from the company's own (a number the company already holds
 * skipped), its notes in sequences of their own, an invoice outside the company's resolution
 * refused, one call at a time per company (the run lease, under the call's own token), never more
 * than the run's `send` of a kind (the caps, under the run row's lock); and members read `test_set_id` but cannot
 * write it.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asRole, createTestDatabase, sqlState, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Tenant } from "../../devkit/factories.ts";
import type { Db } from "../../shared/ports/db/port.ts";
import { createTransports } from "../support/transports.ts";

let db: TestDatabase;
let api: Db;

beforeAll(async () => {
  db = await createTestDatabase();
  api = (await createTransports(db.client, { name: "test-sets" })).db.postgres;
});
afterAll(() => db?.close());

const SET = "2b3c4d5e-6f70-4811-9a2b-3c4d5e6f7081";

const issue = (tenant: Tenant, count: number, set = SET) =>
  api.asService().call("einv_test_set_invoices", {
    p_org_id: tenant.org.id,
    p_company_id: tenant.company.id,
    p_test_set_id: set,
    p_count: count,
  });

/** Moves an invoice to `transmitida`, as a recorded acceptance would (the lifecycle block only). */
const accept = (id: string) =>
  db.superuser(
    `update public.invoices set status = 'transmitida', environment = 'uat', authority_code = repeat('a', 96)
      where id = $1`,
    [id],
  );

const creditNote = async (tenant: Tenant, invoiceId: string) => {
  const [line] = await db.superuser<{ id: string }>(
    "select id from public.invoice_lines where invoice_id = $1 order by position limit 1",
    [invoiceId],
  );
  return api.asService().call("einv_credit_note_create", {
    p_org_id: tenant.org.id,
    p_invoice_id: invoiceId,
    p_concept_code: "1",
    p_reason: "Devolución",
    p_lines: [{ line_id: line?.id ?? "", quantity: "1" }],
    p_actor_id: tenant.admin.id,
    p_lease_seconds: 60,
    p_issued_at: new Date().toISOString(),
  });
};

describe("a test set's documents", () => {
  it("are numbered from 994000001 apart from the company's own, skipping a number the company holds", async () => {
    const tenant = await createTenant(db);
    // a draft of the company's own that took a number of the set's band
    await db.superuser(
      `insert into public.invoices (org_id, company_id, number, buyer_id_type, buyer_id_number, buyer_name)
       values ($1, $2, 'SETP994000002', '13', '222222222222', 'Consumidor final')`,
      [tenant.org.id, tenant.company.id],
    );
    const ids = await issue(tenant, 3);
    const rows = await db.superuser<{ number: string; test_set_id: string; status: string }>(
      "select number, test_set_id, status from public.invoices where id = any(string_to_array($1, ',')::uuid[]) order by number",
      [ids.join(",")],
    );
    expect(rows).toEqual([
      { number: "SETP994000001", test_set_id: SET, status: "pendiente" },
      { number: "SETP994000003", test_set_id: SET, status: "pendiente" },
      { number: "SETP994000004", test_set_id: SET, status: "pendiente" },
    ]);
  });

  it("notes of a set's invoice take the set's sequence; the company's own notes keep theirs", async () => {
    const tenant = await createTenant(db);
    const [ofSet] = await issue(tenant, 1);
    await accept(ofSet ?? "");
    const own = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    await creditNote(tenant, ofSet ?? "");
    await creditNote(tenant, own.id);
    await creditNote(tenant, ofSet ?? "");
    const numbers = await db.superuser<{ number: string; invoice_id: string }>(
      "select number, invoice_id from public.credit_notes where company_id = $1 order by created_at, number",
      [tenant.company.id],
    );
    expect(numbers.map((n) => n.number).sort()).toEqual(["NC1", "NC994000001", "NC994000002"]);
    expect(numbers.find((n) => n.number === "NC1")?.invoice_id).toBe(own.id);

    const progress = await api
      .asService()
      .call("einv_test_set_progress", { p_org_id: tenant.org.id, p_company_id: tenant.company.id });
    // no uat credential yet: no set is named, so nothing is counted
    expect(progress).toMatchObject({ environment: "uat", provider: null, test_set_id: null });
  });

  it("refuses an invoice outside the company's numbering resolution, and a count out of bounds", async () => {
    const tenant = await createTenant(db);
    await db.superuser("update public.companies set resolution_to = 990000100 where id = $1", [
      tenant.company.id,
    ]);
    await expect(issue(tenant, 1)).rejects.toMatchObject({
      message: expect.stringMatching(/SETP994000001 is outside the company's numbering resolution/),
    });
    await expect(issue(tenant, 51)).rejects.toMatchObject({ code: "business_rule" });
    await expect(issue(tenant, 0)).rejects.toMatchObject({ code: "business_rule" });
    expect(
      await db.superuser("select 1 from public.invoices where company_id = $1 and test_set_id is not null", [
        tenant.company.id,
      ]),
    ).toEqual([]);
  });

  it("lets one call at a time hold a company's run lease, under its own token; a lease that ended is taken again", async () => {
    const tenant = await createTenant(db);
    const [mine, theirs] = [randomUUID(), randomUUID()];
    const lease = (token: string, seconds: number, org = tenant.org.id) =>
      api.asService().call("einv_test_set_lease", {
        p_org_id: org,
        p_company_id: tenant.company.id,
        p_token: token,
        p_seconds: seconds,
        p_caps: { test_set_id: SET, invoice: 5, credit_note: 5, debit_note: 5 },
      });
    expect(await lease(mine, 60)).toBe(true);
    expect(await lease(theirs, 60)).toBe(false);
    expect(await lease(mine, 60)).toBe(true); // renewed by its holder
    // another call's give-back does not end the holder's lease
    expect(await lease(theirs, 0)).toBe(false);
    expect(await lease(theirs, 60)).toBe(false);
    expect(await lease(mine, 0)).toBe(true);
    expect(await lease(theirs, 60)).toBe(true);
    await db.superuser(
      "update einv_private.test_set_runs set lease_until = now() - interval '1 second' where company_id = $1",
      [tenant.company.id],
    );
    expect(await lease(mine, 60)).toBe(true);
    // the holder whose lease ended and was taken cannot renew it, nor give it back
    expect(await lease(theirs, 60)).toBe(false);
    expect(await lease(theirs, 0)).toBe(false);
    const stranger = await createTenant(db);
    await expect(lease(mine, 60, stranger.org.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("never issues more than the run's `send` of a kind, whoever asks (under the run row's lock)", async () => {
    const tenant = await createTenant(db);
    const caps = { test_set_id: SET, invoice: 2, credit_note: 1, debit_note: 0 };
    expect(
      await api.asService().call("einv_test_set_lease", {
        p_org_id: tenant.org.id,
        p_company_id: tenant.company.id,
        p_token: randomUUID(),
        p_seconds: 60,
        p_caps: caps,
      }),
    ).toBe(true);
    await expect(issue(tenant, 3)).rejects.toMatchObject({
      code: "business_rule",
      message: expect.stringMatching(/the run's cap/),
    });
    const [first = ""] = await issue(tenant, 1);
    await issue(tenant, 1);
    await expect(issue(tenant, 1)).rejects.toMatchObject({ code: "business_rule" });
    // another set's invoices are counted apart
    expect(await issue(tenant, 2, "another-set")).toHaveLength(2);
    await accept(first);
    await creditNote(tenant, first);
    await expect(creditNote(tenant, first)).rejects.toMatchObject({
      code: "business_rule",
      message: expect.stringMatching(/the run's cap/),
    });
    const count = await db.superuser<{ n: string }>(
      "select count(*)::text as n from public.credit_notes where company_id = $1",
      [tenant.company.id],
    );
    expect(count).toEqual([{ n: "1" }]);
  });

  it("counts a credit note DIAN rejected and a later one replaced: the cap holds what DIAN received", async () => {
    const tenant = await createTenant(db);
    expect(
      await api.asService().call("einv_test_set_lease", {
        p_org_id: tenant.org.id,
        p_company_id: tenant.company.id,
        p_token: randomUUID(),
        p_seconds: 60,
        p_caps: { test_set_id: SET, invoice: 1, credit_note: 2, debit_note: 0 },
      }),
    ).toBe(true);
    const [invoice = ""] = await issue(tenant, 1);
    await accept(invoice);
    // DIAN rejects each note (its words kept, a definite refusal), and the next one replaces it
    const rejectLast = () =>
      db.superuser(
        `update public.credit_notes set status = 'error', submitted_attempt = 1, refused_attempt = 1,
                authority_message = 'Documento con errores en campos mandatorios.'
          where id = (select id from public.credit_notes where company_id = $1 order by number desc limit 1)`,
        [tenant.company.id],
      );
    await creditNote(tenant, invoice);
    await rejectLast();
    await creditNote(tenant, invoice);
    await rejectLast();
    await expect(creditNote(tenant, invoice)).rejects.toMatchObject({
      code: "business_rule",
      message: expect.stringMatching(/the run's cap/),
    });
    // the set the company's uat credential names, which the progress counts
    await db.superuser(
      `insert into einv_private.credentials (org_id, company_id, service, environment, settings)
       values ($1, $2, 'adapter-tax', 'uat', jsonb_build_object('provider', 'dian', 'test_set_id', $3::text))`,
      [tenant.org.id, tenant.company.id, SET],
    );
    const progress = await api
      .asService()
      .call("einv_test_set_progress", { p_org_id: tenant.org.id, p_company_id: tenant.company.id });
    expect(progress).toMatchObject({ kinds: { credit_note: { sent: 2, rejected: 2 } } });
  });

  it("calls that overlap share the cap: of two at once for the last invoice, one is refused", async () => {
    const tenant = await createTenant(db);
    const lease = (token: string) =>
      api.asService().call("einv_test_set_lease", {
        p_org_id: tenant.org.id,
        p_company_id: tenant.company.id,
        p_token: token,
        p_seconds: 60,
        p_caps: { test_set_id: SET, invoice: 3, credit_note: 0, debit_note: 0 },
      });
    expect(await lease(randomUUID())).toBe(true);
    const outcomes = await Promise.allSettled([issue(tenant, 2), issue(tenant, 2), issue(tenant, 1)]);
    const issued = await db.superuser<{ n: string }>(
      "select count(*)::text as n from public.invoices where company_id = $1 and test_set_id is not null",
      [tenant.company.id],
    );
    expect(Number(issued[0]?.n)).toBeLessThanOrEqual(3);
    expect(outcomes.filter((o) => o.status === "rejected").length).toBeGreaterThanOrEqual(1);
  });

  it("reports another organization's company as not found", async () => {
    const tenant = await createTenant(db);
    const stranger = await createTenant(db);
    await expect(
      api
        .asService()
        .call("einv_test_set_progress", { p_org_id: tenant.org.id, p_company_id: stranger.company.id }),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("members read test_set_id but cannot write it, on a draft of their own", async () => {
    const tenant = await createTenant(db);
    const [id = ""] = await issue(tenant, 1);
    const claims = tenant.admin.claims;
    expect(
      await asRole(db, "authenticated", claims, "select test_set_id from public.invoices where id = $1", [
        id,
      ]),
    ).toEqual([{ test_set_id: SET }]);
    expect(
      await sqlState(
        asRole(db, "authenticated", claims, "update public.invoices set test_set_id = null where id = $1", [
          id,
        ]),
      ),
    ).toBe("42501");
    expect(
      await sqlState(
        asRole(
          db,
          "authenticated",
          claims,
          `insert into public.invoices (org_id, company_id, number, test_set_id) values ($1, $2, 'SETP990000001', 'x')`,
          [tenant.org.id, tenant.company.id],
        ),
      ),
    ).toBe("42501");
  });
  it("are the service's: a member may neither edit nor delete a set's draft, nor write its lines", async () => {
    const tenant = await createTenant(db);
    const [id = ""] = await issue(tenant, 1);
    const claims = tenant.admin.claims;
    const before = await db.superuser("select number, buyer_name, total from public.invoices where id = $1", [
      id,
    ]);
    // RLS hides the row from an update or delete: nothing changes, nothing is removed
    expect(
      await asRole(
        db,
        "authenticated",
        claims,
        "update public.invoices set number = 'SETP990000777', buyer_name = 'Cliente Real SA' where id = $1 returning id",
        [id],
      ),
    ).toEqual([]);
    expect(
      await asRole(db, "authenticated", claims, "delete from public.invoices where id = $1 returning id", [
        id,
      ]),
    ).toEqual([]);
    expect(
      await asRole(
        db,
        "authenticated",
        claims,
        "update public.invoice_lines set quantity = 999999 where invoice_id = $1 returning id",
        [id],
      ),
    ).toEqual([]);
    expect(
      await sqlState(
        asRole(
          db,
          "authenticated",
          claims,
          `insert into public.invoice_lines (invoice_id, org_id, position, description, quantity, unit_price)
           values ($1, $2, 9, 'más', 1, 1000)`,
          [id, tenant.org.id],
        ),
      ),
    ).toBe("42501");
    expect(
      await db.superuser("select number, buyer_name, total from public.invoices where id = $1", [id]),
    ).toEqual(before);
    // the company's own drafts stay the members' to edit
    const own = await createInvoice(db, tenant.org, tenant.company);
    expect(
      await asRole(
        db,
        "authenticated",
        claims,
        "update public.invoices set buyer_name = 'Otro' where id = $1 returning id",
        [own.id],
      ),
    ).toEqual([{ id: own.id }]);
  });

  it("is never claimed for production: with the company in prd its draft is skipped by name, the rest sent", async () => {
    const tenant = await createTenant(db);
    const [id = ""] = await issue(tenant, 1);
    const own = await createInvoice(db, tenant.org, tenant.company);
    await db.superuser("update public.companies set active_environment = 'prd' where id = $1", [
      tenant.company.id,
    ]);
    const { entries } = await api.asService().call("einv_document_claim_sending", {
      p_org_id: tenant.org.id,
      p_kind: "invoice",
      p_document_ids: [own.id, id],
      p_reissue: false,
      p_actor_id: tenant.admin.id,
      p_lease_seconds: 60,
      p_issued_at: new Date().toISOString(),
      p_service: "adapter-tax",
    });
    expect(entries).toMatchObject([
      { document_id: own.id, action: "send", environment: "prd" },
      { document_id: id, action: "skip", status: "pendiente", reason: "test_set_in_production" },
    ]);
    const [row] = await db.superuser<{ status: string; environment: string | null }>(
      "select status, environment from public.invoices where id = $1",
      [id],
    );
    expect(row).toEqual({ status: "pendiente", environment: null });
    // and whatever writes it, no test-set invoice takes the production environment
    expect(
      await sqlState(db.superuser("update public.invoices set environment = 'prd' where id = $1", [id])),
    ).toBe("P0001");
    // in uat it is claimed as any draft
    await db.superuser("update public.companies set active_environment = 'uat' where id = $1", [
      tenant.company.id,
    ]);
    const { entries: again } = await api.asService().call("einv_document_claim_sending", {
      p_org_id: tenant.org.id,
      p_kind: "invoice",
      p_document_ids: [id],
      p_reissue: false,
      p_actor_id: tenant.admin.id,
      p_lease_seconds: 60,
      p_issued_at: new Date().toISOString(),
      p_service: "adapter-tax",
    });
    expect(again[0]).toMatchObject({ action: "send", environment: "uat" });
  });
});
