/**
 * Exactly who may do what in the database: every schema, table, view, sequence, function and type in
 * the schemas the migrations create (public, einv_private), found in the catalog, against ONE
 * declared list below; and every RLS policy, anywhere (ours include one on storage.objects). An
 * object added without a decision, a grant too many or too few, a revoke forgotten: each fails with
 * a sentence naming the object and the role. The list is what the catalog must say after the
 * migrations; change it in the same commit as the migration, on purpose.
 *
 *   anon           USAGE on public, and nothing in it;
 *   authenticated  reads through RLS, writes invoice drafts through column grants, calls only
 *                  einv_caller_membership (and my_org_ids, through the policies);
 *   service_role   reads, and changes state only through the database API.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asRole, createTestDatabase, sqlState, type TestDatabase } from "../../devkit/database.ts";
import { createTenant } from "../../devkit/factories.ts";
import {
  API_ROLES,
  actualGrants,
  actualPolicies,
  compareGrants,
  type Grants,
  unknownSchemas,
  unpinnedDefiners,
} from "./privileges-catalog.ts";

/** What each API role holds on each object; a role left out holds nothing. `rls`: tables only. */
const DECLARED: Record<string, Grants> = {
  // Schemas: anon may use public (PostgREST needs it); only members and the service einv_private.
  "schema einv_private": { authenticated: "USAGE", service_role: "USAGE" },
  "schema public": { anon: "USAGE", authenticated: "USAGE", service_role: "USAGE" },
  // Tables: members read through RLS and write drafts through column grants; the service reads, and
  // writes only through the database API (security definer functions). einv_private's grant nothing.
  "table einv_private.credentials": { rls: true },
  "table einv_private.delivery_package_counters": { rls: false },
  "table einv_private.document_kinds": { rls: false },
  "table einv_private.idempotency_keys": { rls: true },
  // each company's sequence of notes of each kind (…_notes.sql)
  "table einv_private.note_counters": { rls: false },
  "table einv_private.test_set_runs": { rls: false },
  // the event outbox and its webhook deliveries (…_events.sql): the service's alone
  "table einv_private.outbox": { rls: false },
  "table einv_private.event_sequences": { rls: false },
  "table einv_private.webhook_deliveries": { rls: false },
  "table einv_private.reconcile_leases": { rls: false },
  "table einv_private.reconcile_runs": { rls: false },
  "table public.companies": {
    rls: true,
    authenticated:
      "SELECT(id, org_id, nit, check_digit, legal_name, trade_name, person_type, tax_regime, tax_scheme, fiscal_responsibilities, address, city_code, city_name, department_code, department_name, postal_zone, country_code, email, phone, invoice_prefix, resolution_number, resolution_date, resolution_from, resolution_to, resolution_valid_until, active_environment, created_at, updated_at, credit_note_prefix, debit_note_prefix), INSERT(org_id, nit, check_digit, legal_name, trade_name, person_type, tax_regime, tax_scheme, fiscal_responsibilities, address, city_code, city_name, department_code, department_name, postal_zone, country_code, email, phone, invoice_prefix, resolution_number, resolution_date, resolution_from, resolution_to, resolution_valid_until, technical_key, active_environment, software_pin, credit_note_prefix, debit_note_prefix), UPDATE(nit, check_digit, legal_name, trade_name, person_type, tax_regime, tax_scheme, fiscal_responsibilities, address, city_code, city_name, department_code, department_name, postal_zone, country_code, email, phone, invoice_prefix, resolution_number, resolution_date, resolution_from, resolution_to, resolution_valid_until, technical_key, active_environment, software_pin, credit_note_prefix, debit_note_prefix)",
    service_role: "SELECT",
  },
  "table public.credit_note_lines": { rls: true, authenticated: "SELECT", service_role: "SELECT" },
  "table public.credit_notes": { rls: true, authenticated: "SELECT", service_role: "SELECT" },
  "table public.debit_note_lines": { rls: true, authenticated: "SELECT", service_role: "SELECT" },
  "table public.debit_notes": { rls: true, authenticated: "SELECT", service_role: "SELECT" },
  "table public.deliveries": { rls: true, authenticated: "SELECT", service_role: "SELECT" },
  "table public.events": { rls: true, authenticated: "SELECT", service_role: "SELECT" },
  // the inputs of a draft only: every amount is the database's (…_amounts.sql)
  "table public.invoice_lines": {
    rls: true,
    authenticated:
      "SELECT, INSERT(invoice_id, org_id, position, code, description, unit_code, quantity, unit_price, taxes, allowance_charges), UPDATE(position, code, description, unit_code, quantity, unit_price, taxes, allowance_charges), DELETE",
    service_role: "SELECT",
  },
  "table public.invoices": {
    rls: true,
    authenticated:
      "SELECT, INSERT(org_id, company_id, number, issue_date, issue_time, due_date, currency, exchange_rate, exchange_rate_date, payment_form, payment_method, notes, buyer_id_type, buyer_id_number, buyer_check_digit, buyer_person_type, buyer_fiscal_responsibilities, buyer_tax_scheme, buyer_name, buyer_email, buyer_address, buyer_city_code, buyer_city_name, buyer_department_code, buyer_department_name, buyer_postal_zone, buyer_country_code, buyer_phone, allowance_charges, withholdings, prepayments), UPDATE(company_id, number, issue_date, issue_time, due_date, currency, exchange_rate, exchange_rate_date, payment_form, payment_method, notes, buyer_id_type, buyer_id_number, buyer_check_digit, buyer_person_type, buyer_fiscal_responsibilities, buyer_tax_scheme, buyer_name, buyer_email, buyer_address, buyer_city_code, buyer_city_name, buyer_department_code, buyer_department_name, buyer_postal_zone, buyer_country_code, buyer_phone, allowance_charges, withholdings, prepayments), DELETE",
    service_role: "SELECT",
  },
  "table public.memberships": { rls: true, authenticated: "SELECT", service_role: "SELECT" },
  "table public.organizations": { rls: true, authenticated: "SELECT", service_role: "SELECT" },
  "table public.representations": { rls: true, authenticated: "SELECT", service_role: "SELECT" },
  // admins read their endpoints through RLS, every column but the sealed secrets
  "table public.webhook_endpoints": {
    rls: true,
    authenticated:
      "SELECT(id, org_id, url, events, enabled, disabled_reason, disabled_at, created_by, created_at, updated_at)",
    service_role: "SELECT",
  },
  // Sequences: nobody may move one (anon could setval the events' identity to its maximum).
  "sequence public.events_id_seq": {},
  "sequence einv_private.outbox_id_seq": {},
  "sequence einv_private.webhook_deliveries_id_seq": {},
  // Types: USAGE is PUBLIC's by default; harmless, as anon may not use einv_private at all.
  "type einv_private.lifecycle": { anon: "USAGE", authenticated: "USAGE", service_role: "USAGE" },
  // The database API: exactly one caller each; members only einv_caller_membership.
  "function public.einv_caller_membership(uuid)": { authenticated: "EXECUTE" },
  "function public.einv_credential_get(uuid, uuid, text, text)": { service_role: "EXECUTE" },
  "function public.einv_credential_list(uuid, integer)": { service_role: "EXECUTE" },
  "function public.einv_credential_reseal(uuid, text, text, text)": { service_role: "EXECUTE" },
  "function public.einv_credit_note_create(uuid, uuid, text, text, jsonb, uuid, integer, timestamp with time zone)":
    {
      service_role: "EXECUTE",
    },
  "function public.einv_debit_note_create(uuid, uuid, text, text, jsonb, uuid, integer, timestamp with time zone)":
    {
      service_role: "EXECUTE",
    },
  "function public.einv_delivery_attachments(uuid, uuid, jsonb)": { service_role: "EXECUTE" },
  "function public.einv_test_set_invoices(uuid, uuid, text, integer)": { service_role: "EXECUTE" },
  "function public.einv_test_set_lease(uuid, uuid, uuid, integer, jsonb)": { service_role: "EXECUTE" },
  "function public.einv_test_set_progress(uuid, uuid)": { service_role: "EXECUTE" },
  "function public.einv_delivery_begin(uuid, text, uuid, text, uuid, uuid, uuid, jsonb, integer)": {
    service_role: "EXECUTE",
  },
  "function public.einv_delivery_record(uuid, uuid, text, text, text)": { service_role: "EXECUTE" },
  "function public.einv_delivery_retry_later(uuid, uuid, uuid)": { service_role: "EXECUTE" },
  "function public.einv_events_prune(integer, integer)": { service_role: "EXECUTE" },
  "function public.einv_webhook_get(uuid, uuid)": { service_role: "EXECUTE" },
  "function public.einv_webhook_pick(uuid, integer, integer)": { service_role: "EXECUTE" },
  "function public.einv_webhook_record(bigint, integer, jsonb)": { service_role: "EXECUTE" },
  "function public.einv_webhook_secret_list(uuid, integer)": { service_role: "EXECUTE" },
  "function public.einv_webhook_secret_reseal(uuid, boolean, text, text, text)": { service_role: "EXECUTE" },
  "function public.einv_webhook_save(uuid, uuid, boolean, text, jsonb, boolean, boolean, text, text, uuid, integer)":
    { service_role: "EXECUTE" },
  "function public.einv_document_claim(uuid, text, jsonb, boolean, uuid, integer, timestamp with time zone)":
    {
      service_role: "EXECUTE",
    },
  // the claim with the company's credential in the same round trip (…_lifecycle.sql)
  "function public.einv_document_claim_sending(uuid, text, jsonb, boolean, uuid, integer, timestamp with time zone, text)":
    {
      service_role: "EXECUTE",
    },
  "function public.einv_document_get(uuid, text, uuid)": { service_role: "EXECUTE" },
  "function public.einv_document_get_with_credentials(uuid, text, uuid, text)": { service_role: "EXECUTE" },
  "function public.einv_document_get_with_credentials_authorized(uuid, jsonb, uuid, text, uuid, text)": {
    service_role: "EXECUTE",
  },
  "function public.einv_document_claim_sending_authorized(uuid, jsonb, uuid, text, jsonb, boolean, uuid, integer, timestamp with time zone, text)":
    { service_role: "EXECUTE" },
  // the stored PDF alone while the document's inputs are unchanged (…_representation.sql)
  "function public.einv_document_representation_read(uuid, text, uuid, text, text)": {
    service_role: "EXECUTE",
  },
  "function public.einv_document_representation_read_authorized(uuid, jsonb, uuid, text, uuid, text, text)": {
    service_role: "EXECUTE",
  },
  "function public.einv_document_record(uuid, text, uuid, integer, jsonb)": { service_role: "EXECUTE" },
  "function public.einv_document_refresh_record(uuid, text, uuid, text, integer, jsonb)": {
    service_role: "EXECUTE",
  },
  "function public.einv_idempotency_begin(uuid, text, text, text)": { service_role: "EXECUTE" },
  "function public.einv_idempotency_finish(uuid, text, text, uuid, integer, jsonb)": {
    service_role: "EXECUTE",
  },
  "function public.einv_integration_event(uuid, uuid, text, text, text, text, text, text, text, text, uuid)":
    { service_role: "EXECUTE" },
  "function public.einv_integration_get(uuid, uuid, text, text)": { service_role: "EXECUTE" },
  "function public.einv_integration_issuer(uuid, uuid)": { service_role: "EXECUTE" },
  "function public.einv_integration_save(uuid, uuid, text, text, text, jsonb, text, text, text, text, text, uuid)":
    { service_role: "EXECUTE" },
  "function public.einv_reconcile_begin()": { service_role: "EXECUTE" },
  "function public.einv_reconcile_finish(uuid, integer, integer, jsonb, integer)": {
    service_role: "EXECUTE",
  },
  "function public.einv_reconcile_pick(uuid, integer, integer, integer)": { service_role: "EXECUTE" },
  "function public.einv_reconcile_pick_deliveries(uuid, integer)": { service_role: "EXECUTE" },
  "function public.einv_reconcile_pick_open_deliveries(uuid, integer, integer, integer)": {
    service_role: "EXECUTE",
  },
  "function public.einv_reconcile_record(uuid, uuid, text, uuid, jsonb)": { service_role: "EXECUTE" },
  "function public.einv_reconcile_release(uuid, uuid, text, uuid)": { service_role: "EXECUTE" },
  "function public.einv_representation_attach_xml(uuid, text, uuid, text, text)": {
    service_role: "EXECUTE",
  },
  "function public.einv_representation_save(uuid, text, uuid, text, text, text, boolean, text, text)": {
    service_role: "EXECUTE",
  },
  // Private helpers of policies, triggers and the API (the definers read across organizations): none
  // may be called but my_org_ids, which the policies call.
  "function einv_private.accepted_status(text)": {},
  "function einv_private.caller_bypasses_rls()": {},
  // the lifecycle's per-kind entry points, regenerated from the registry (…_lifecycle.sql)
  "function einv_private.compile_document_kinds()": {},
  "function einv_private.compile_document_kinds_trigger()": {},
  "function einv_private.kind_dispatch(text)": {},
  "function einv_private.test_set_stays_in_uat()": {},
  "function einv_private.membership_of(uuid, uuid)": {},
  "function einv_private.role_listed(jsonb, jsonb)": {},
  "function einv_private.credit_note_line_release_only()": {},
  // the outbox's writer and its triggers, and the webhooks' helpers (…_events.sql)
  "function einv_private.credential_changed()": {},
  "function einv_private.emit_event(text, uuid, uuid, text, text)": {},
  "function einv_private.event_payload(einv_private.outbox)": {},
  "function einv_private.status_changed()": {},
  // the outbox's broadcast to the org's Realtime channel (…_realtime.sql)
  "function einv_private.broadcast_event()": {},
  "function einv_private.webhook_answer(webhook_endpoints)": {},
  "function einv_private.webhook_backoff(integer)": {},
  "function einv_private.webhook_disable(uuid, text)": {},
  "function einv_private.webhook_due_sql(boolean)": {},
  "function einv_private.webhooks_queued()": {},
  "function einv_private.webhook_secrets(webhook_endpoints)": {},
  "function einv_private.credit_note_lines_within_invoice_lines()": {},
  // the amounts: the computing functions, their refusals and the triggers that keep them (…_amounts.sql),
  // and what a credit note takes of a line (…_credit_notes.sql)
  "function einv_private.allowance_charge_amounts(jsonb, numeric, numeric, integer, text)": {},
  "function einv_private.allowance_charges_share(jsonb, numeric, boolean)": {},
  "function einv_private.credit_part(jsonb, numeric, jsonb, numeric, numeric, text)": {},
  "function einv_private.credited_of(uuid)": {},
  "function einv_private.document_amounts(jsonb, jsonb, jsonb, jsonb, numeric, text)": {},
  "function einv_private.input_decimal(jsonb, integer, numeric, boolean, numeric, boolean, text, text)": {},
  "function einv_private.invoice_line_set_amounts()": {},
  "function einv_private.invoice_lines_changed()": {},
  "function einv_private.invoice_problems(invoices)": {},
  "function einv_private.invoice_rate_changed()": {},
  "function einv_private.invoice_set_amounts()": {},
  "function einv_private.line_amounts(numeric, numeric, jsonb, jsonb, numeric, text)": {},
  "function einv_private.money(numeric)": {},
  "function einv_private.person_type(text, text)": {},
  "function einv_private.price(numeric)": {},
  "function einv_private.refuse(text, text, text)": {},
  "function einv_private.scheme_order(text)": {},
  "function einv_private.tax_scheme(text)": {},
  "function einv_private.unknown_key(jsonb, text[])": {},
  "function einv_private.company_check_digit()": {},
  "function einv_private.credit_note_payload(uuid, jsonb)": {},
  "function einv_private.debit_note_payload(uuid, jsonb)": {},
  "function einv_private.freeze_debit_note()": {},
  // what every kind of note shares (…_notes.sql)
  "function einv_private.bogota_date(timestamp with time zone)": {},
  "function einv_private.bogota_time(timestamp with time zone)": {},
  "function einv_private.next_note_number(uuid, text, boolean)": {},
  "function einv_private.note_created(uuid, text, uuid, uuid, jsonb, uuid, integer, timestamp with time zone)":
    {},
  "function einv_private.note_invoice(uuid, uuid, text)": {},
  "function einv_private.test_set_room(uuid, text, text, integer)": {},
  "function einv_private.note_of_invoice(uuid, uuid, jsonb)": {},
  "function einv_private.note_restampable(text, integer, integer)": {},
  "function einv_private.credit_note_replaceable(credit_notes)": {},
  "function einv_private.document_inputs(uuid, text, uuid)": {},
  "function einv_private.delivery_package()": {},
  "function einv_private.document_of(text, uuid, uuid, boolean)": {},
  "function einv_private.representation_read_functions()": {},
  "function einv_private.document_payload(text, uuid, uuid, jsonb)": {},
  "function einv_private.forbid_change()": {},
  "function einv_private.freeze_credit_note()": {},
  "function einv_private.freeze_sent_invoice()": {},
  "function einv_private.freeze_sent_invoice_lines()": {},
  "function einv_private.invoice_payload(uuid, jsonb)": {},
  "function einv_private.issuer_of(uuid)": {},
  "function einv_private.kind_table(text)": {},
  "function einv_private.lifecycle_columns(text)": {},
  "function einv_private.log_credential_event(uuid, uuid, text, uuid, text, text, text, text, text, text, text)":
    {},
  "function einv_private.log_event(uuid, text, uuid, text, uuid, jsonb)": {},
  "function einv_private.nit_check_digit(text)": {},
  "function einv_private.my_org_ids(text[])": { authenticated: "EXECUTE", service_role: "EXECUTE" },
  // the invoice-lines policy asks whether a line's invoice is a test set's (…_access_control.sql)
  "function einv_private.is_test_set_invoice(uuid)": { authenticated: "EXECUTE", service_role: "EXECUTE" },
  "function einv_private.read_documents(text, uuid, uuid[], boolean)": {},
  "function einv_private.reconcile_held(uuid, text, uuid, uuid)": {},
  "function einv_private.recorded_result(einv_private.lifecycle)": {},
  "function einv_private.reconcile_pick_sql(regclass)": {},
  "function einv_private.touch_updated_at()": {},
  "function einv_private.with_outcome(text, einv_private.lifecycle, jsonb)": {},
  "function einv_private.write_lifecycle(text, uuid, einv_private.lifecycle)": {},
};

/** Every row-level security policy: `<table>: <name>` → `<PERMISSIVE|RESTRICTIVE> <command> to <roles>`. */
const POLICIES: Record<string, string> = {
  "public.organizations: members read their organizations": "PERMISSIVE SELECT to authenticated",
  "public.memberships: members read their organization's memberships": "PERMISSIVE SELECT to authenticated",
  "public.companies: members read their organization's companies": "PERMISSIVE SELECT to authenticated",
  "public.companies: admins create companies in their organization": "PERMISSIVE INSERT to authenticated",
  "public.companies: admins edit their organization's companies": "PERMISSIVE UPDATE to authenticated",
  "public.invoices: members read their organization's invoices": "PERMISSIVE SELECT to authenticated",
  "public.invoices: admins and operadores create draft invoices": "PERMISSIVE INSERT to authenticated",
  "public.invoices: admins and operadores edit draft invoices": "PERMISSIVE UPDATE to authenticated",
  "public.invoices: admins and operadores delete draft invoices": "PERMISSIVE DELETE to authenticated",
  "public.invoice_lines: members read their organization's invoice lines":
    "PERMISSIVE SELECT to authenticated",
  "public.invoice_lines: admins and operadores write lines of draft invoices":
    "PERMISSIVE ALL to authenticated",
  "public.events: admins read their organization's credential events": "PERMISSIVE SELECT to authenticated",
  "public.events: members read their organization's document events": "PERMISSIVE SELECT to authenticated",
  "public.representations: members read their organization's representations":
    "PERMISSIVE SELECT to authenticated",
  "public.deliveries: members read their organization's deliveries": "PERMISSIVE SELECT to authenticated",
  "public.credit_notes: members read their organization's credit notes": "PERMISSIVE SELECT to authenticated",
  "public.credit_note_lines: members read their organization's credit note lines":
    "PERMISSIVE SELECT to authenticated",
  "public.debit_notes: members read their organization's debit notes": "PERMISSIVE SELECT to authenticated",
  "public.debit_note_lines: members read their organization's debit note lines":
    "PERMISSIVE SELECT to authenticated",
  "storage.objects: members read their organization's service documents":
    "PERMISSIVE SELECT to authenticated",
  "public.webhook_endpoints: admins read their organization's webhook endpoints":
    "PERMISSIVE SELECT to authenticated",
  // Realtime's authorization of the org's private channel (…_realtime.sql)
  "realtime.messages: members receive their organization's document events":
    "PERMISSIVE SELECT to authenticated",
  "realtime.messages: only members listen on organization document channels":
    "RESTRICTIVE SELECT to authenticated",
  "realtime.messages: anon never listens on organization document channels": "RESTRICTIVE SELECT to anon",
  "realtime.messages: nobody sends on organization document channels":
    "RESTRICTIVE INSERT to anon, authenticated",
};

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

describe("the declared list", () => {
  it("is what the catalog says: every object decided, each role's privileges exact", async () => {
    expect(compareGrants(DECLARED, await actualGrants(db))).toEqual([]);
  });

  it("names every policy there is, each with its command and roles", async () => {
    expect(await actualPolicies(db)).toEqual(POLICIES);
  });

  it("covers every schema: the migrations create none besides public and einv_private", async () => {
    expect(await unknownSchemas(db)).toEqual([]);
  });

  it("reports an object created without a decision by name, and a missing revoke by role", async () => {
    await db.superuser("create function public.einv_scratch() returns int language sql as 'select 1'");
    try {
      const problems = compareGrants(DECLARED, await actualGrants(db));
      expect(problems).toEqual([
        expect.stringMatching(/^function public\.einv_scratch\(\) has no decision in the declared list/),
      ]);
      const withDecision = { ...DECLARED, "function public.einv_scratch()": { service_role: "EXECUTE" } };
      // Supabase's default privileges (reproduced by the bootstrap) gave it to everyone
      expect(compareGrants(withDecision, await actualGrants(db))).toEqual([
        "function public.einv_scratch(): anon holds [EXECUTE] but the declared list says []",
        "function public.einv_scratch(): authenticated holds [EXECUTE] but the declared list says []",
      ]);
    } finally {
      await db.superuser("drop function public.einv_scratch()");
    }
  });
});

describe("rules every object of the list follows", () => {
  it("each public.einv_* function is callable by exactly one of service_role and authenticated", async () => {
    const api = Object.entries(await actualGrants(db)).filter(([name]) =>
      name.startsWith("function public.einv_"),
    );
    expect(api.length).toBeGreaterThan(20);
    const callers = api.map(([name, grants]) => ({ name, roles: API_ROLES.filter((role) => grants[role]) }));
    expect(callers.filter(({ roles }) => roles.length !== 1 || roles[0] === "anon")).toEqual([]);
  });

  it("security definer functions pin their search_path", async () => {
    expect(await unpinnedDefiners(db)).toEqual([]);
  });

  it("tables of the exposed schema have row level security on", async () => {
    const open = Object.entries(await actualGrants(db)).filter(
      ([name, grants]) => name.startsWith("table public.") && grants.rls !== true,
    );
    expect(open.map(([name]) => name)).toEqual([]);
  });
});

describe("sequences", () => {
  it("created later in public grant nothing either: the default privilege is withdrawn", async () => {
    await db.superuser("create sequence public.test_later_seq");
    try {
      const later = (await actualGrants(db))["sequence public.test_later_seq"];
      expect(later).toEqual({});
    } finally {
      await db.superuser("drop sequence public.test_later_seq");
    }
  });

  it("cannot be moved by anon or a member: setval is refused and events keep being written", async () => {
    const tenant = await createTenant(db);
    const setval = "select setval('public.events_id_seq', 9223372036854775807)";
    expect(await sqlState(asRole(db, "anon", { role: "anon" }, setval))).toBe("42501");
    expect(await sqlState(asRole(db, "authenticated", tenant.admin.claims, setval))).toBe("42501");
    expect(
      await sqlState(
        asRole(db, "authenticated", tenant.admin.claims, "select nextval('public.events_id_seq')"),
      ),
    ).toBe("42501");
    const [event] = await db.superuser<{ id: string }>(
      `insert into public.events (org_id, document_type, document_id, kind) values ($1, 'invoice', gen_random_uuid(), 'test')
       returning id::text`,
      [tenant.org.id],
    );
    expect(Number(event?.id)).toBeLessThan(1_000_000);
  });
});
