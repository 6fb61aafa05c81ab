/**
 * A reissue of a rejected credit note racing a new note for the same line, over HTTP through the
 * real app, on a pool of four database connections (a pool of one serialises every call and hides
 * the race), repeated for many rounds. The oracle is the sandbox authority's own books: for every
 * invoice line, what the accepted credit notes credit there never exceeds the line. The answers
 * stay in the contract (every response is checked against docs/openapi.json): a reissue that loses
 * is 409 `invalid_state`, a new note that loses is 422 naming the line. And twenty partial notes
 * racing on one line: exactly the ones that fit are made, whatever order the database takes them in.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApp } from "../../devkit/app.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import { createInvoice, DEFAULT_LINES, type Tenant } from "../../devkit/factories.ts";
import { createSandboxProvider, type SandboxProvider } from "../../sandbox/provider.ts";
import { moneyToCents } from "../../shared/ports/providers/protocol.ts";
import { openRouteSuite } from "../support/route-suite.ts";

const ROUNDS = 20;

let db: TestDatabase;
let t: TestApp;
let sandbox: SandboxProvider;
let tenant: Tenant;
let token: string;

beforeAll(async () => {
  sandbox = createSandboxProvider();
  // the database's client is a pool of four connections
  ({ db, t, tenant, token } = await openRouteSuite({
    providerFetch: (input, init) => sandbox.fetch(new Request(input, init)),
  }));
});
afterAll(() => db?.close());

const post = (path: string, body: Record<string, unknown>) =>
  t.post(path, { org_id: tenant.org.id, ...body }, token);

/**
 * A note for `line` made and recorded `error` by the database API as a rejection leaves it (the
 * sandbox never saw it: a reissue then sends it, and the sandbox accepts it).
 */
async function rejectedNote(invoiceId: string, line: string): Promise<string> {
  const [made] = await db.superuser<{ entry: { document_id: string; attempt: number } }>(
    `select public.einv_credit_note_create($1, $2, '1', 'Devolución', jsonb_build_array(jsonb_build_object('line_id', $3::uuid)), null, 60, now()) as entry`,
    [tenant.org.id, invoiceId, line],
  );
  const id = made?.entry.document_id as string;
  await db.superuser(
    `select public.einv_document_record($1, 'credit_note', $2, $3,
       jsonb_build_object('status', 'error', 'message', 'rejected', 'submitted_attempt', $3::int, 'definite', true))`,
    [tenant.org.id, id, made?.entry.attempt ?? 1],
  );
  return id;
}

/** Per invoice line, the base amount (in cents) that credit notes the sandbox accepted credit there. */
async function creditedAtTheAuthority(): Promise<Map<string, bigint>> {
  const accepted = [...sandbox.documents.values()]
    .filter((d) => d.status === "accepted")
    .map((d) => d.reference);
  const rows = await db.superuser<{ note: string; line: string; amount: string }>(
    `select c.credit_note_id::text as note, c.invoice_line_id::text as line, c.line_extension::text as amount
       from public.credit_note_lines c where c.credit_note_id = any ($1::uuid[])`,
    [`{${accepted.join(",")}}`],
  );
  const credited = new Map<string, bigint>();
  for (const row of rows) credited.set(row.line, (credited.get(row.line) ?? 0n) + moneyToCents(row.amount));
  return credited;
}

describe("a reissue racing a new credit note for the same line", () => {
  it(`never credits a line twice at the authority (${ROUNDS} rounds, four connections)`, async () => {
    const answers = { reissue: new Map<number, number>(), create: new Map<number, number>() };
    const lines = new Map<string, bigint>();
    for (let round = 0; round < ROUNDS; round++) {
      const invoice = await createInvoice(db, tenant.org, tenant.company, { lines: DEFAULT_LINES });
      const sent = await post("/transmit", { invoice_ids: [invoice.id] });
      expect((await sent.json()).results[0].status).toBe("transmitida");
      const line = invoice.lineIds[0] as string;
      const [row] = await db.superuser<{ amount: string }>(
        "select line_extension::text as amount from public.invoice_lines where id = $1",
        [line],
      );
      lines.set(line, moneyToCents(row?.amount ?? "0.00"));

      // a note that ended in `error` without reaching the authority (its submit never arrived)
      const first = await rejectedNote(invoice.id, line);

      // now the provider accepts: the reissue of that note and a new note for its line, at once
      sandbox.setKnobs({ latencyMs: round % 4 });
      const [reissued, created] = await Promise.all([
        post("/credit-notes/reissue", { credit_note_id: first }),
        post("/credit-notes", {
          invoice_id: invoice.id,
          concept_code: "1",
          reason: "Devolución",
          line_ids: [line],
        }),
      ]);
      answers.reissue.set(reissued.status, (answers.reissue.get(reissued.status) ?? 0) + 1);
      answers.create.set(created.status, (answers.create.get(created.status) ?? 0) + 1);
      expect([200, 409]).toContain(reissued.status);
      expect([200, 409, 422]).toContain(created.status);
      if (created.status === 422) expect((await created.json()).error.message).toContain(line);
      sandbox.setKnobs({ latencyMs: 0 });
    }

    const credited = await creditedAtTheAuthority();
    for (const [line, amount] of lines) {
      expect(credited.get(line) ?? 0n, `line ${line}: credited at the authority`).toBeLessThanOrEqual(amount);
      // and one of the two always got through: the line is credited once, not lost
      expect(credited.get(line) ?? 0n, `line ${line}: credited at the authority`).toBe(amount);
    }
    console.log("answers", { reissue: [...answers.reissue], create: [...answers.create] });
  });
});

describe("20 partial credit notes at once on one line whose sum would exceed it", () => {
  it("exactly the ones that fit are made and accepted; the others are 422 naming the line", async () => {
    // 10 units of 33.333,33; twenty returns of 1 to 3 units ask for 40
    const invoice = await createInvoice(db, tenant.org, tenant.company, {
      lines: [{ description: "Licencia", quantity: 10, unitPrice: 33_333.33, taxRate: 19 }],
    });
    const sent = await post("/transmit", { invoice_ids: [invoice.id] });
    expect((await sent.json()).results[0].status).toBe("transmitida");
    const line = invoice.lineIds[0] as string;
    const asks = Array.from({ length: 20 }, (_, i) => 1 + (i % 3) + (i % 2));
    const answers = await Promise.all(
      asks.map((units) =>
        post("/credit-notes", {
          invoice_id: invoice.id,
          concept_code: "1",
          reason: "Devolución parcial",
          lines: [{ line_id: line, quantity: String(units) }],
        }),
      ),
    );

    let returned = 0;
    const refused: number[] = [];
    for (const [i, answer] of answers.entries()) {
      const body = await answer.json();
      if (answer.status === 200) {
        expect(body.status).toBe("emitida");
        returned += asks[i] as number;
      } else {
        expect(answer.status).toBe(422);
        expect(body.error).toMatchObject({ code: "business_rule", message: expect.stringContaining(line) });
        refused.push(asks[i] as number);
      }
    }
    // never more than the line, and nothing refused that would still have fit once all were made
    expect(returned).toBeLessThanOrEqual(10);
    expect(refused.length).toBeGreaterThan(0);
    for (const units of refused) expect(units).toBeGreaterThan(10 - returned);

    // the authority's books agree: what its accepted notes return of the line is what was answered
    const accepted = [...sandbox.documents.values()]
      .filter((d) => d.status === "accepted")
      .map((d) => d.reference);
    const [atAuthority] = await db.superuser<{ units: string | null; base: string | null }>(
      `select trim_scale(sum(c.credited_quantity))::text as units, sum(c.line_extension)::text as base
         from credit_note_lines c where c.invoice_line_id = $1 and c.credit_note_id = any ($2::uuid[])`,
      [line, `{${accepted.join(",")}}`],
    );
    expect(atAuthority).toEqual({
      units: String(returned),
      base: (Math.round(returned * 3_333_333) / 100).toFixed(2),
    });
  });
});
