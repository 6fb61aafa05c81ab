/**
 * Row level security, column grants and integrity triggers, per role: admin, operador, lector, a
 * member of another organization, anon and the service. Statements run the way PostgREST runs them
 * (`role` and `request.jwt.claims` set in a transaction), so these are the rules the web app meets.
 *
 * A write that RLS filters out touches no rows without an error; one that lacks a grant or fails a
 * policy check is 42501; one an integrity trigger stops is P0001; a foreign key is 23503.
 */
import { randomUUID } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  asRole,
  createTestDatabase,
  type Param,
  sqlState,
  type TestDatabase,
} from "../../devkit/database.ts";
import {
  type Claims,
  createEvent,
  createInvoice,
  createTenant,
  createUser,
  type Invoice,
  randomDigits,
  type Tenant,
  type User,
} from "../../devkit/factories.ts";
import { nitCheckDigit } from "../../shared/co/check-digit.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

const MEMBER_ROLES = ["admin", "operador", "lector"] as const;
const WRITERS = ["admin", "operador"] as const;

const DENIED = "42501";
const FROZEN = "P0001";
const NO_SUCH_KEY = "23503";
/** A line written for an invoice the caller may not see: "invoice … not found", before RLS or keys. */
const NOT_FOUND = "P0001";

/** Each table and the column holding its organization. */
const TABLES = {
  organizations: "id",
  memberships: "org_id",
  companies: "org_id",
  invoices: "org_id",
  invoice_lines: "org_id",
  events: "org_id",
  representations: "org_id",
  deliveries: "org_id",
} as const;
const TABLE_NAMES = Object.keys(TABLES) as (keyof typeof TABLES)[];
/** How many rows of each table one tenant with one invoice (2 lines, 1 event, 1 PDF, 1 delivery) has. */
const OWN_ROWS = {
  organizations: 1,
  memberships: 3,
  companies: 1,
  invoices: 1,
  invoice_lines: 2,
  events: 1,
  representations: 1,
  deliveries: 1,
};
/** Written only by the service, through the database API functions: members only read them. */
const SERVICE_RECORDS = ["representations", "deliveries"] as const;

const FISCAL_COLUMNS: [column: string, value: string][] = [
  ["status", "'transmitida'"],
  ["authority_code", "'cufe'"],
  ["qr_text", "'qr'"],
  ["provider_reference", "'ref'"],
  ["environment", "'prd'"],
  ["last_message", "'ok'"],
  ["attempt_count", "7"],
  ["claimed_at", "now()"],
  ["transmitted_at", "now()"],
  ["status_checked_at", "now()"],
];

/** Every change a user could attempt on an existing draft and its lines; `returning` shows what it touched. */
const DRAFT_CHANGES = [
  "update public.invoices set notes = 'x' where id = $1 returning id",
  "delete from public.invoices where id = $1 returning id",
  "update public.invoice_lines set description = 'x' where invoice_id = $1 returning id",
  "delete from public.invoice_lines where invoice_id = $1 returning id",
];

const as = <R = Record<string, unknown>>(claims: Claims, sql: string, params: Param[] = []) =>
  asRole<R>(db, "authenticated", claims, sql, params);
const anon = (sql: string, params: Param[] = []) => asRole(db, "anon", { role: "anon" }, sql, params);
const service = (sql: string, params: Param[] = []) =>
  asRole(db, "service_role", { role: "service_role" }, sql, params);
const superuser = (sql: string, params: Param[] = []) => db.superuser(sql, params);

async function fails(code: string, work: Promise<unknown>, label?: string): Promise<void> {
  expect(await sqlState(work), label).toBe(code);
}

const draftInsert = (org: string, company: string, column = "", value = "") =>
  `insert into public.invoices (org_id, company_id, number${column})
   values ('${org}', '${company}', 'SETP${randomDigits(9)}'${value}) returning id`;
const lineInsert = (invoice: string, org: string) =>
  `insert into public.invoice_lines (invoice_id, org_id, position, description, quantity, unit_price)
     values ('${invoice}', '${org}', 3, 'Nueva línea', 1, 1000) returning id`;
const companyInsert = (org: string, technicalKey?: string, nit = randomDigits(9)) =>
  `insert into public.companies (org_id, nit, check_digit, legal_name, address, city_code, city_name,
     department_code, department_name${technicalKey === undefined ? "" : ", technical_key"})
   values ('${org}', '${nit}', '${nitCheckDigit(nit)}', 'Nueva S.A.S.', 'Calle 1', '11001', 'Bogotá', '11', 'Bogotá'${
     technicalKey === undefined ? "" : `, '${technicalKey}'`
   })
   returning id`;

/** A tenant with one invoice (2 lines), one event, its PDF representation and one delivery. */
async function tenantWithDocuments(): Promise<Tenant & { invoice: Invoice }> {
  const tenant = await createTenant(db);
  const invoice = await createInvoice(db, tenant.org, tenant.company);
  await createEvent(db, invoice);
  await superuser(
    `insert into public.representations (org_id, document_type, document_id, path, filename, fingerprint,
       stamped, renderer, generated_at)
     values ($1, 'invoice', $2, $3, 'factura.pdf', 'f1', false, 'builtin', now())`,
    [tenant.org.id, invoice.id, `${tenant.org.id}/invoices/${invoice.id}/factura.pdf`],
  );
  await superuser(
    "insert into public.deliveries (org_id, document_type, document_id, recipient) values ($1, 'invoice', $2, $3)",
    [tenant.org.id, invoice.id, "cliente@test.example"],
  );
  return { ...tenant, invoice };
}

/** What a denied writer must not have changed: the draft's notes and its lines. */
const draftSnapshot = (invoice: Invoice) =>
  superuser(
    `select i.notes, i.total::text, array_agg(l.description order by l.position) as lines
       from public.invoices i join public.invoice_lines l on l.invoice_id = i.id
      where i.id = $1 group by i.id`,
    [invoice.id],
  );

describe("reading", () => {
  it.each(MEMBER_ROLES)("a %s reads its organization's rows and no others", async (role) => {
    const mine = await tenantWithDocuments();
    await tenantWithDocuments(); // another organization's rows, which must stay invisible
    for (const table of TABLE_NAMES) {
      const sql = `select ${TABLES[table]} as org from public.${table}`;
      const orgs = (await as<{ org: string }>(mine[role].claims, sql)).map((row) => row.org);
      expect(orgs, table).toEqual(Array(OWN_ROWS[table]).fill(mine.org.id));
    }
  });

  it("a member of another organization sees none of its rows", async () => {
    const victim = await tenantWithDocuments();
    const stranger = (await createTenant(db)).admin;
    for (const table of TABLE_NAMES) {
      const sql = `select 1 from public.${table} where ${TABLES[table]} = $1`;
      expect(await as(stranger.claims, sql, [victim.org.id]), table).toEqual([]);
    }
  });

  it("a signed-in user with no membership sees nothing at all", async () => {
    await tenantWithDocuments();
    const loner = await createUser(db);
    for (const table of TABLE_NAMES) {
      expect(await as(loner.claims, `select 1 from public.${table}`), table).toEqual([]);
    }
  });

  it("anon is denied every table, for reading and writing", async () => {
    await tenantWithDocuments();
    for (const table of TABLE_NAMES) {
      await fails(DENIED, anon(`select 1 from public.${table}`), table);
      await fails(DENIED, anon(`update public.${table} set ${TABLES[table]} = ${TABLES[table]}`), table);
      await fails(DENIED, anon(`delete from public.${table}`), table);
      await fails(DENIED, anon(`insert into public.${table} default values`), table);
    }
  });
});

describe("invoice drafts", () => {
  it.each(WRITERS)("a %s creates, edits and deletes a pendiente draft and its lines", async (role) => {
    const { org, company, ...members } = await createTenant(db);
    const me = members[role].claims;
    const [{ id } = { id: "" }] = await as<{ id: string }>(me, draftInsert(org.id, company.id));
    const [{ id: lineId } = { id: "" }] = await as<{ id: string }>(me, lineInsert(id, org.id));
    const editLine = "update public.invoice_lines set quantity = 2 where id = $1";
    await as(me, editLine, [lineId]);
    await as(me, "update public.invoices set buyer_name = 'Nuevo' where id = $1", [id]);
    // the total is the database's: 2 × 1.000, the line as edited
    const saved = await superuser("select buyer_name, total::text from public.invoices where id = $1", [id]);
    expect(saved).toEqual([{ buyer_name: "Nuevo", total: "2000.00" }]);
    expect(
      await as(me, "delete from public.invoice_lines where id = $1 returning id", [lineId]),
    ).toHaveLength(1);
    expect(await as(me, "delete from public.invoices where id = $1 returning id", [id])).toHaveLength(1);
    expect(await superuser("select 1 from public.invoices where id = $1", [id])).toEqual([]);
  });

  it.each([
    // a lector may see the invoice, so it is told no; a stranger is told there is no such invoice
    ["a lector", (mine: Tenant, _other: Tenant): User => mine.lector, DENIED],
    ["an admin of another organization", (_mine: Tenant, other: Tenant): User => other.admin, NOT_FOUND],
  ])(
    "%s can neither create, change nor delete the organization's drafts and lines",
    async (_who, pick, lineError) => {
      const mine = await createTenant(db);
      const me = pick(mine, await createTenant(db)).claims;
      const invoice = await createInvoice(db, mine.org, mine.company);
      const before = await draftSnapshot(invoice);
      await fails(DENIED, as(me, draftInsert(mine.org.id, mine.company.id)));
      await fails(lineError, as(me, lineInsert(invoice.id, mine.org.id)));
      for (const change of DRAFT_CHANGES) expect(await as(me, change, [invoice.id]), change).toEqual([]);
      expect(await draftSnapshot(invoice)).toEqual(before);
    },
  );

  it.each(WRITERS)(
    "a %s cannot choose a row's id, so an insert never tells whether an id exists",
    async (role) => {
      const [mine, other] = [await createTenant(db), await createTenant(db)];
      const theirs = await createInvoice(db, other.org, other.company);
      const me = mine[role].claims;
      const [{ id: draft } = { id: "" }] = await as<{ id: string }>(
        me,
        draftInsert(mine.org.id, mine.company.id),
      );
      const withId = (table: string, insert: string, id: string) =>
        insert.replace(`insert into public.${table} (`, "$&id, ").replace("values (", `values ('${id}', `);
      // another organization's invoice, line and company ids, and one nobody has: the same refusal
      for (const [taken, fresh] of [
        [theirs.id, randomUUID()],
        [theirs.lineIds[0] ?? "", randomUUID()],
        [other.company.id, randomUUID()],
      ]) {
        for (const id of [taken ?? "", fresh ?? ""]) {
          const inserts = [
            withId("invoices", draftInsert(mine.org.id, mine.company.id), id),
            withId("invoice_lines", lineInsert(draft, mine.org.id), id),
            withId("companies", companyInsert(mine.org.id), id),
          ];
          for (const sql of inserts) await fails(DENIED, as(me, sql), sql);
        }
      }
      expect(await superuser("select 1 from public.invoices where id = $1", [theirs.id])).toHaveLength(1);
    },
  );

  it.each(WRITERS)("a %s cannot move a draft or its lines to another organization", async (role) => {
    const [mine, other] = [await createTenant(db), await createTenant(db)];
    const { id } = await createInvoice(db, mine.org, mine.company);
    const theirs = await createInvoice(db, other.org, other.company);
    const [org, otherOrg, otherCompany] = [mine.org.id, other.org.id, other.company.id];
    const attempts: [code: string, sql: string, params?: Param[]][] = [
      // org_id and invoice_id are not updatable, and an insert is checked against its organization
      [DENIED, "update public.invoices set org_id = $1 where id = $2", [otherOrg, id]],
      [DENIED, "update public.invoice_lines set org_id = $1 where invoice_id = $2", [otherOrg, id]],
      [DENIED, "update public.invoice_lines set invoice_id = $1 where invoice_id = $2", [theirs.id, id]],
      [DENIED, draftInsert(otherOrg, otherCompany)],
      [NOT_FOUND, lineInsert(theirs.id, otherOrg)],
      // another organization's company under our org_id: the composite key refuses
      [NO_SUCH_KEY, "update public.invoices set company_id = $1 where id = $2", [otherCompany, id]],
      [NO_SUCH_KEY, draftInsert(org, otherCompany)],
      // its invoice under our org_id: not found, as if it did not exist
      [NOT_FOUND, lineInsert(theirs.id, org)],
    ];
    for (const [code, sql, params] of attempts) await fails(code, as(mine[role].claims, sql, params), sql);
  });
});

describe("fiscal columns", () => {
  it.each(FISCAL_COLUMNS)("no member can update %s, not even on a draft", async (column, value) => {
    const { org, company, admin, operador, lector } = await createTenant(db);
    const invoice = await createInvoice(db, org, company);
    const sql = `update public.invoices set ${column} = ${value} where id = $1`;
    for (const { claims } of [admin, operador, lector]) {
      await fails(DENIED, as(claims, sql, [invoice.id]));
    }
  });

  it.each(FISCAL_COLUMNS)("no member can create a draft with %s set", async (column, value) => {
    const { org, company, admin, operador } = await createTenant(db);
    for (const { claims } of [admin, operador]) {
      await fails(DENIED, as(claims, draftInsert(org.id, company.id, `, ${column}`, `, ${value}`)));
    }
  });
});

describe("events", () => {
  it("neither members nor the service can write events directly", async () => {
    const { org, admin, invoice } = await tenantWithDocuments();
    const writes = [
      `insert into public.events (org_id, document_type, document_id, kind)
       values ('${org.id}', 'invoice', '${invoice.id}', 'forged')`,
      `update public.events set kind = 'x' where document_id = '${invoice.id}'`,
      `delete from public.events where document_id = '${invoice.id}'`,
    ];
    for (const write of writes) {
      await fails(DENIED, as(admin.claims, write), write);
      await fails(DENIED, service(write), write);
    }
  });

  it("members read their organization's document events; its credential events only its admins", async () => {
    const tenant = await tenantWithDocuments();
    await superuser(
      `insert into public.events (org_id, document_type, document_id, kind, data)
       values ($1, 'credential', $2, 'credential_saved', '{"url": "https://p.example/", "api_key_hint": "1234"}')`,
      [tenant.org.id, tenant.company.id],
    );
    const kinds = async (claims: Claims) =>
      (
        await as<{ document_type: string }>(
          claims,
          "select document_type from public.events where org_id = $1 order by document_type",
          [tenant.org.id],
        )
      ).map((r) => r.document_type);
    expect(await kinds(tenant.admin.claims)).toEqual(["credential", "invoice"]);
    expect(await kinds(tenant.operador.claims)).toEqual(["invoice"]);
    expect(await kinds(tenant.lector.claims)).toEqual(["invoice"]);
    const stranger = await createTenant(db);
    expect(await kinds(stranger.admin.claims)).toEqual([]);
  });

  it("an event cannot be changed or deleted even by the superuser", async () => {
    const { invoice } = await tenantWithDocuments();
    for (const change of ["update public.events set kind = 'x'", "delete from public.events"]) {
      await fails(FROZEN, superuser(`${change} where document_id = $1`, [invoice.id]), change);
    }
  });
});

describe("sent invoices", () => {
  it.each([
    ["public.invoices", "freeze_sent_invoice"],
    ["public.credit_notes", "freeze_credit_note"],
  ])("%s: the freeze compares every column but the lifecycle block and updated_at", async (table, freeze) => {
    // a column added later (content, an input or an amount) is frozen only once it is listed there
    const [row] = await superuser(
      `select array(select a.attname::text from pg_attribute a
                     where a.attrelid = $1::regclass and a.attnum > 0 and not a.attisdropped
                       and a.attname <> 'updated_at'
                       and a.attname not in (select l.attname from pg_attribute l
                                              where l.attrelid = 'einv_private.lifecycle'::regclass and l.attnum > 0)
                     order by a.attnum) as columns,
              pg_get_functiondef(('einv_private.' || $2 || '()')::regprocedure) as definition`,
      [table, freeze],
    );
    const { columns, definition } = row as { columns: string[]; definition: string };
    expect(columns.length).toBeGreaterThan(15);
    expect(columns.filter((c) => !new RegExp(`\\bold\\.${c}\\b`).test(definition))).toEqual([]);
    expect(columns.filter((c) => !new RegExp(`\\bnew\\.${c}\\b`).test(definition))).toEqual([]);
  });

  const SENT = ["en_proceso", "transmitida", "error"] as const;

  it.each(SENT)("a %s invoice's content and lines cannot change, even as the superuser", async (status) => {
    const { org, company } = await createTenant(db);
    const invoice = await createInvoice(db, org, company, { status });
    for (const change of [
      ...DRAFT_CHANGES,
      "update public.invoices set total = total + 1 where id = $1",
      "update public.invoices set buyer_name = 'Otro' where id = $1",
      "update public.invoices set number = 'SETP1' where id = $1",
      "update public.invoice_lines set quantity = 3 where invoice_id = $1",
    ]) {
      await fails(FROZEN, superuser(change, [invoice.id]), change);
    }
    await fails(FROZEN, superuser(lineInsert(invoice.id, org.id)));
  });

  it.each(SENT)("a %s invoice is out of reach of admin and operador", async (status) => {
    const { org, company, admin, operador } = await createTenant(db);
    const invoice = await createInvoice(db, org, company, { status });
    const before = await draftSnapshot(invoice);
    for (const { claims } of [admin, operador]) {
      const [invoiceChanges, lineChanges] = [DRAFT_CHANGES.slice(0, 2), DRAFT_CHANGES.slice(2)];
      for (const change of invoiceChanges) expect(await as(claims, change, [invoice.id]), change).toEqual([]);
      for (const change of lineChanges) await fails(FROZEN, as(claims, change, [invoice.id]), change);
      await fails(FROZEN, as(claims, lineInsert(invoice.id, org.id)));
    }
    expect(await draftSnapshot(invoice)).toEqual(before);
  });

  it("the service can still record fiscal outcomes on a sent invoice", async () => {
    const { org, company } = await createTenant(db);
    const invoice = await createInvoice(db, org, company, { status: "en_proceso" });
    const rows = await superuser(
      `update public.invoices set status = 'transmitida', authority_code = 'cufe', last_message = 'ok'
        where id = $1 returning status`,
      [invoice.id],
    );
    expect(rows).toEqual([{ status: "transmitida" }]);
  });
});

describe("another organization's invoice, probed by writing a line for it", () => {
  /** The error a statement fails with, as the caller sees it. */
  async function answer(work: Promise<unknown>): Promise<{ code: string; message: string }> {
    try {
      await work;
    } catch (error) {
      const { code, message } = error as { code: string; message: string };
      return { code, message: message.replace(/[0-9a-f-]{36}/g, "<id>") };
    }
    throw new Error("expected the statement to fail");
  }
  const lineAt = (invoice: string, org: string, position: number) =>
    lineInsert(invoice, org).replace("', 3, 'Nueva", `', ${position}, 'Nueva`);

  it("answers 'not found' alike whether it exists, in which state, and however many lines it has", async () => {
    const victim = await createTenant(db);
    const attacker = await createTenant(db);
    const sent = await createInvoice(db, victim.org, victim.company, { status: "transmitida" });
    const draft = await createInvoice(db, victim.org, victim.company);
    const targets = [sent.id, draft.id, randomUUID()];
    const answers = new Set<string>();
    for (const claims of [attacker.admin.claims, attacker.operador.claims])
      for (const invoice of targets)
        for (const org of [victim.org.id, attacker.org.id])
          for (const position of [1, 3]) {
            // position 1 is taken on the draft: a unique violation would say it has lines
            answers.add(JSON.stringify(await answer(as(claims, lineAt(invoice, org, position)))));
          }
    expect([...answers]).toEqual([JSON.stringify({ code: FROZEN, message: "invoice <id> not found" })]);
    expect(await draftSnapshot(draft)).toHaveLength(1);
  });

  it("a line of one organization cannot hang from another organization's invoice, even for its admin", async () => {
    const [one, two] = [await createTenant(db), await createTenant(db)];
    const invoice = await createInvoice(db, one.org, one.company);
    // the caller is a member of `two`, the line says `two`, the invoice is `one`'s
    const member = await createUser(db);
    await superuser(
      "insert into public.memberships (org_id, user_id, role) values ($1, $2, 'admin'), ($3, $2, 'lector')",
      [two.org.id, member.id, one.org.id],
    );
    expect(await answer(as(member.claims, lineInsert(invoice.id, two.org.id)))).toEqual({
      code: FROZEN,
      message: "invoice <id> not found",
    });
  });

  // two connections at once, by URL: the real server only (PGlite is one connection in-process)
  it.skipIf(inject("database").kind === "pglite")(
    "neither waits for nor locks the other organization's invoice while a claim holds it",
    async () => {
      const victim = await createTenant(db);
      const attacker = await createTenant(db);
      const invoice = await createInvoice(db, victim.org, victim.company);
      const holder = postgres(db.url ?? "", { max: 1, onnotice: () => {} });
      const intruder = postgres(db.url ?? "", { max: 1, onnotice: () => {} });
      try {
        const code = await holder.begin(async (claim) => {
          // a transmission claim holds the victim's invoice
          await claim.unsafe("select id from public.invoices where id = $1 for update", [invoice.id]);
          // the intruder would wait for that lock (and time out) if the trigger looked at the row first
          return intruder
            .begin(async (tx) => {
              await tx.unsafe(
                `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true),
                      set_config('lock_timeout', '2s', true)`,
                [JSON.stringify(attacker.admin.claims)],
              );
              await tx.unsafe(lineInsert(invoice.id, victim.org.id));
            })
            .then(
              () => "inserted",
              (error: { code?: string; message: string }) =>
                `${error.code}: ${error.message.replace(/[0-9a-f-]{36}/g, "<id>")}`,
            );
        });
        expect(code).toBe(`${NOT_FOUND}: invoice <id> not found`);
      } finally {
        await Promise.all([holder.end({ timeout: 5 }), intruder.end({ timeout: 5 })]);
      }
    },
  );

  it("a member still adds lines to its own drafts, and the service writes them too", async () => {
    const tenant = await createTenant(db);
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    expect(await as(tenant.operador.claims, lineInsert(invoice.id, tenant.org.id))).toHaveLength(1);
    expect(await superuser(lineAt(invoice.id, tenant.org.id, 4))).toHaveLength(1);
  });
});

describe("companies", () => {
  const rename = "update public.companies set legal_name = 'Renombrada' where id = $1 returning id";

  it("an admin creates and edits its organization's companies, and nobody deletes them", async () => {
    const { org, company, admin } = await createTenant(db);
    expect(await as(admin.claims, companyInsert(org.id))).toHaveLength(1);
    expect(await as(admin.claims, rename, [company.id])).toHaveLength(1);
    await fails(DENIED, as(admin.claims, "delete from public.companies where id = $1", [company.id]));
  });

  it.each(["operador", "lector"] as const)("a %s can neither create nor edit companies", async (role) => {
    const tenant = await createTenant(db);
    await fails(DENIED, as(tenant[role].claims, companyInsert(tenant.org.id)));
    expect(await as(tenant[role].claims, rename, [tenant.company.id])).toEqual([]);
  });

  it("an admin can neither create nor edit another organization's companies", async () => {
    const victim = await createTenant(db);
    const stranger = (await createTenant(db)).admin.claims;
    await fails(DENIED, as(stranger, companyInsert(victim.org.id)));
    expect(await as(stranger, rename, [victim.company.id])).toEqual([]);
    await fails(DENIED, as(stranger, "update public.companies set org_id = $1", [victim.org.id]));
  });
});

describe("the technical key", () => {
  const KEY = "technical_key";
  const companyColumns = async (): Promise<string[]> =>
    (
      await superuser(
        `select attname from pg_attribute
          where attrelid = 'public.companies'::regclass and attnum > 0 and not attisdropped order by attnum`,
      )
    ).map((row) => String(row.attname));

  it.each(MEMBER_ROLES)("a %s cannot read it, alone or through select *", async (role) => {
    const tenant = await createTenant(db);
    const me = tenant[role].claims;
    for (const sql of [
      `select ${KEY} from public.companies where id = $1`,
      "select * from public.companies where id = $1",
      `select 1 from public.companies where id = $1 and ${KEY} is not null`,
    ]) {
      await fails(DENIED, as(me, sql, [tenant.company.id]), sql);
    }
  });

  it.each(MEMBER_ROLES)("a %s reads every other column of its companies", async (role) => {
    const tenant = await createTenant(db);
    // the software PIN (credit notes' CUDE) is hidden the same way: tests/db/credit-notes.test.ts
    const others = (await companyColumns()).filter((column) => column !== KEY && column !== "software_pin");
    const sql = `select ${others.join(", ")} from public.companies where id = $1`;
    const [row] = await as(tenant[role].claims, sql, [tenant.company.id]);
    expect(Object.keys(row ?? {})).toEqual(others);
    expect(row).toMatchObject({ id: tenant.company.id, nit: tenant.company.nit });
  });

  it("an admin sets it on a new or existing company without reading it back", async () => {
    const { org, company, admin } = await createTenant(db);
    const set = `update public.companies set ${KEY} = 'nueva-clave' where id = $1 returning id`;
    expect(await as(admin.claims, set, [company.id])).toEqual([{ id: company.id }]);
    const [created] = await as<{ id: string }>(admin.claims, companyInsert(org.id, "otra-clave"));
    const keys = await superuser(
      `select id, ${KEY} from public.companies where id in ($1, $2) order by ${KEY}`,
      [company.id, created?.id ?? null],
    );
    expect(keys).toEqual([
      { id: company.id, [KEY]: "nueva-clave" },
      { id: created?.id, [KEY]: "otra-clave" },
    ]);
    // reading it back, as `returning *` would, is denied
    await fails(
      DENIED,
      as(admin.claims, `update public.companies set ${KEY} = 'x' where id = $1 returning *`, [company.id]),
    );
  });

  it.each(MEMBER_ROLES)("a %s cannot read it from a sent invoice's frozen issuer either", async (role) => {
    const tenant = await createTenant(db);
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const [row] = await as<{ issuer: Record<string, unknown> }>(
      tenant[role].claims,
      "select issuer_snapshot as issuer from public.invoices where id = $1",
      [invoice.id],
    );
    expect(row?.issuer).toMatchObject({ nit: tenant.company.nit });
    expect(row?.issuer).not.toHaveProperty(KEY);
  });

  it("the service reads it", async () => {
    const { company } = await createTenant(db);
    const rows = await service(`select ${KEY} from public.companies where id = $1`, [company.id]);
    expect(rows).toEqual([{ [KEY]: "fc8eac422eba16e22ffd8c6f94b3f40a6e38162c" }]);
  });
});

describe("representations and deliveries", () => {
  const writes = (org: string, invoice: string): [table: string, sql: string][] => [
    [
      "representations",
      `insert into public.representations (org_id, document_type, document_id, path, filename, fingerprint,
         stamped, renderer, generated_at)
       values ('${org}', 'invoice', '${randomUUID()}', '${org}/x.pdf', 'x.pdf', 'f', true, 'builtin', now())`,
    ],
    [
      "representations",
      `update public.representations set stamped = true, path = 'x' where org_id = '${org}'`,
    ],
    ["representations", `delete from public.representations where org_id = '${org}'`],
    [
      "deliveries",
      `insert into public.deliveries (org_id, document_type, document_id, recipient) values ('${org}', 'invoice', '${invoice}', 'x@test.example')`,
    ],
    ["deliveries", `update public.deliveries set status = 'enviada' where org_id = '${org}'`],
    ["deliveries", `delete from public.deliveries where org_id = '${org}'`],
  ];
  const snapshot = (org: string) =>
    superuser(
      `select (select jsonb_agg(to_jsonb(r) order by r.id) from public.representations r where r.org_id = $1) as r,
              (select jsonb_agg(to_jsonb(d) order by d.id) from public.deliveries d where d.org_id = $1) as d`,
      [org],
    );

  it.each(MEMBER_ROLES)("a %s can neither create, change nor delete them", async (role) => {
    const tenant = await tenantWithDocuments();
    const before = await snapshot(tenant.org.id);
    for (const [table, sql] of writes(tenant.org.id, tenant.invoice.id)) {
      expect(SERVICE_RECORDS).toContain(table);
      await fails(DENIED, as(tenant[role].claims, sql), sql);
    }
    expect(await snapshot(tenant.org.id)).toEqual(before);
  });

  it("neither anon nor the service writes them directly", async () => {
    const tenant = await tenantWithDocuments();
    const before = await snapshot(tenant.org.id);
    for (const [, sql] of writes(tenant.org.id, tenant.invoice.id)) {
      await fails(DENIED, anon(sql), sql);
      await fails(DENIED, service(sql), sql);
    }
    expect(await snapshot(tenant.org.id)).toEqual(before);
  });
});

describe("einv_caller_membership", () => {
  const call = "select public.einv_caller_membership($1) as m";

  it.each(MEMBER_ROLES)("tells a %s its role, and null for another organization", async (role) => {
    const [mine, other] = [await createTenant(db), await createTenant(db)];
    const me = mine[role];
    const membership = { org_id: mine.org.id, user_id: me.id, role };
    expect(await as(me.claims, call, [mine.org.id])).toEqual([{ m: membership }]);
    expect(await as(me.claims, call, [other.org.id])).toEqual([{ m: null }]);
  });

  it("cannot be called by anon or the service", async () => {
    const { org } = await createTenant(db);
    await fails(DENIED, anon(call, [org.id]));
    await fails(DENIED, service(call, [org.id]));
  });
});

describe("service_role", () => {
  it.each(TABLE_NAMES)("reads every organization's %s but cannot write them directly", async (table) => {
    const { org } = await tenantWithDocuments();
    const column = TABLES[table];
    expect(await service(`select 1 from public.${table} where ${column} = $1`, [org.id])).not.toEqual([]);
    const update = `update public.${table} set ${column} = ${column} where ${column} = $1`;
    await fails(DENIED, service(update, [org.id]));
    await fails(DENIED, service(`delete from public.${table} where ${column} = $1`, [org.id]));
    await fails(DENIED, service(`insert into public.${table} default values`));
  });
});
