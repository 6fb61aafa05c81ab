/**
 * Properties of the amounts the database computes (supabase/migrations/…_amounts.sql), over random
 * drafts within the bounds: every stored invoice satisfies the arithmetic DIAN checks of a document
 * (brief-business §4–§6: FAU02/04/06/08/14, FAS02/04/07, FAX02/07, FAT02/07, the CUFE's ValImp1–3),
 * re-derived here from the stored inputs and results with exact decimal arithmetic of this file's
 * own — not by calling the database's functions again; and credit notes over them, in any order and
 * size, never credit more than a line's units, base or any one of its taxes, and once a line is
 * credited whole they have credited it to the cent.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTenant, setInvoiceStatus, type Tenant } from "../../devkit/factories.ts";
import { type Draft, randomDraft, writeDraft } from "../support/random-drafts.ts";

let db: TestDatabase;
let tenant: Tenant;
beforeAll(async () => {
  db = await createTestDatabase();
  tenant = await createTenant(db);
});
afterAll(() => db?.close());

// ─── exact decimals: a value is n × 10^-scale ──────────────────────────────────────────────────────
interface Dec {
  n: bigint;
  scale: number;
}
function dec(text: string | number): Dec {
  const s = String(text);
  if (!/^-?\d+(\.\d+)?$/.test(s)) throw new Error(`not a decimal: ${s}`);
  const [whole = "0", fraction = ""] = s.replace("-", "").split(".");
  const n = BigInt(whole + fraction) * (s.startsWith("-") ? -1n : 1n);
  return { n, scale: fraction.length };
}
const at = (a: Dec, scale: number): bigint => a.n * 10n ** BigInt(scale - a.scale); // scale ≥ a.scale
const mul = (a: Dec, b: Dec): Dec => ({ n: a.n * b.n, scale: a.scale + b.scale });
/** a / b to `scale` digits, exact enough here: the dividends are integers of the divisor's scale. */
const div = (a: Dec, b: Dec): Dec => {
  const scale = 18;
  return {
    n: (at(a, Math.max(a.scale, b.scale)) * 10n ** BigInt(scale)) / at(b, Math.max(a.scale, b.scale)),
    scale,
  };
};
/** Rounded to `scale` decimals, half away from zero (DIAN's amounts are never negative). */
function round(a: Dec, scale: number): Dec {
  if (a.scale <= scale) return { n: at(a, scale), scale };
  const unit = 10n ** BigInt(a.scale - scale);
  const sign = a.n < 0n ? -1n : 1n;
  const abs = a.n * sign;
  return { n: sign * ((abs + unit / 2n) / unit), scale };
}
const cents = (a: Dec): bigint => round(a, 2).n;
/** `percent` % of an amount in cents, in cents, rounded half up. */
const pct = (base: bigint, percent: string): bigint => {
  const p = dec(percent);
  return round({ n: base * p.n, scale: 2 + p.scale + 2 }, 2).n;
};
const centsOf = (text: string | number): bigint => cents(dec(text));
const sum = (values: bigint[]) => values.reduce((s, v) => s + v, 0n);

/** The database's JSON with every number kept as its exact decimal text. */
const exactJson = <T>(text: string): T =>
  JSON.parse(text.replace(/([:[,]\s*)(-?\d+(?:\.\d+)?)(?=\s*[,}\]])/g, '$1"$2"'));

let numbered = 0;
/** A random draft written as the web app writes it (tests/support/random-drafts.ts). */
const write = (draft: Draft) => writeDraft(db, tenant, draft, `SETP${993_000_000 + numbered++}`);
const invoice = randomDraft;

interface Tax {
  code: string;
  name: string;
  percent?: string;
  taxable_amount?: string;
  per_unit_amount?: string;
  per_quantity?: string;
  unit_measure?: string;
  measure?: string;
  tax_amount: string;
}
interface Charge {
  charge: boolean;
  percent: string | null;
  base_amount: string;
  amount: string;
}
interface Scheme {
  code: string;
  tax_amount: string;
  subtotals: Omit<Tax, "code" | "name">[];
}
interface StoredLine {
  quantity: string;
  unit_price: string;
  price_amount: string;
  line_extension: string;
  tax_amount: string;
  taxes: Tax[];
  charges: Charge[];
}

/** What DIAN's arithmetic rules say is wrong with a stored invoice, re-derived from its inputs. */
async function violations(id: string): Promise<string[]> {
  const [doc] = await db.superuser<Record<string, string>>(
    `select currency, coalesce(exchange_rate, 1)::text as rate, subtotal::text, tax_exclusive_amount::text,
            tax_total::text, tax_inclusive_amount::text, allowance_total_amount::text, charge_total_amount::text,
            total::text, prepaid_amount::text, withholding_total_amount::text, net_payable_amount::text,
            tax_totals::text, withholding_totals::text, allowance_charge_amounts::text, prepayment_amounts::text,
            allowance_charges::text as charge_inputs, prepayments::text as prepayment_inputs
       from public.invoices where id = $1`,
    [id],
  );
  const rows = await db.superuser<Record<string, string>>(
    `select trim_scale(quantity)::text as quantity, unit_price::text, price_amount::text, line_extension::text,
            tax_amount::text, tax_subtotals::text as taxes, allowance_charge_amounts::text as charges
       from public.invoice_lines where invoice_id = $1 order by position`,
    [id],
  );
  if (!doc) return ["no invoice"];
  const rate = dec(doc.rate as string);
  const lines: StoredLine[] = rows.map((r) => ({
    ...(r as unknown as StoredLine),
    taxes: exactJson<Tax[]>(r.taxes as string),
    charges: exactJson<Charge[]>(r.charges as string),
  }));
  const wrong: string[] = [];
  const check = (ok: boolean, what: string) => ok || wrong.push(what);

  for (const [i, l] of lines.entries()) {
    const at = `line ${i + 1}`;
    const price = round(mul(dec(l.unit_price), rate), 6);
    check(at6(price) === at6(dec(l.price_amount)), `${at}: price_amount is unit_price × rate`);
    const gross = cents(mul(dec(l.quantity), dec(l.price_amount)));
    for (const c of l.charges) {
      check(centsOf(c.base_amount) === gross, `${at}: a discount's or charge's base is quantity × price`);
      if (c.percent !== null) check(centsOf(c.amount) === pct(gross, c.percent), `${at}: percent × base`);
    }
    const charges = sum(l.charges.filter((c) => c.charge).map((c) => centsOf(c.amount)));
    const allowances = sum(l.charges.filter((c) => !c.charge).map((c) => centsOf(c.amount)));
    // FAV06 (as Vendix reads it): the line is price × quantity less its discounts, plus its charges
    check(centsOf(l.line_extension) === gross - allowances + charges, `${at}: LineExtensionAmount`);
    for (const t of l.taxes) {
      if (t.percent !== undefined) {
        check(
          centsOf(t.taxable_amount as string) === centsOf(l.line_extension),
          `${at}: ${t.code} taxes the line`,
        );
        // FAX07: the line's tax is its base × percent, to the cent
        check(
          centsOf(t.tax_amount) === pct(centsOf(t.taxable_amount as string), t.percent),
          `${at}: FAX07 ${t.code}`,
        );
      } else {
        const measure = round(mul(dec(l.quantity), dec(t.unit_measure as string)), 6);
        check(at6(measure) === at6(dec(t.measure as string)), `${at}: ${t.code} measure`);
        const amount = round(
          mul(div(dec(t.measure as string), dec(t.per_quantity as string)), dec(t.per_unit_amount as string)),
          2,
        );
        check(centsOf(t.tax_amount) === amount.n, `${at}: ${t.code} per unit`);
      }
    }
    check(new Set(l.taxes.map((t) => t.code)).size === l.taxes.length, `${at}: FAX01 one tax per scheme`);
    // FAX02: the line's TaxTotal is the sum of its subtotals
    check(centsOf(l.tax_amount) === sum(l.taxes.map((t) => centsOf(t.tax_amount))), `${at}: FAX02`);
  }

  const lineTaxes = lines.flatMap((l) => l.taxes);
  const schemes = exactJson<Scheme[]>(doc.tax_totals as string);
  for (const s of schemes) {
    // FAS02: a scheme's TaxAmount is its subtotals'; FAS04: one subtotal per rate
    check(centsOf(s.tax_amount) === sum(s.subtotals.map((t) => centsOf(t.tax_amount))), `FAS02 ${s.code}`);
    const rates = s.subtotals.map((t) => `${t.percent}|${t.per_unit_amount}|${t.per_quantity}`);
    check(new Set(rates).size === rates.length, `FAS04 ${s.code}`);
    for (const t of s.subtotals) {
      const same = lineTaxes.filter(
        (x) =>
          x.code === s.code &&
          (t.percent !== undefined
            ? eq(x.percent, t.percent)
            : eq(x.per_unit_amount, t.per_unit_amount) && eq(x.per_quantity, t.per_quantity)),
      );
      check(
        centsOf(t.tax_amount) === sum(same.map((x) => centsOf(x.tax_amount))),
        `FAS ${s.code}: the lines' sum`,
      );
      if (t.percent !== undefined) {
        check(
          centsOf(t.taxable_amount as string) === sum(same.map((x) => centsOf(x.taxable_amount as string))),
          `FAS ${s.code} base`,
        );
        // FAS07: base × percent, within half a cent per line rounded on its own (round_per_line)
        const diff = centsOf(t.tax_amount) - pct(centsOf(t.taxable_amount as string), t.percent);
        check(
          (diff < 0n ? -diff : diff) * 2n <= BigInt(same.length),
          `FAS07 ${s.code}: ${diff} cents for ${same.length} lines`,
        );
      }
    }
  }
  check(
    sum(schemes.flatMap((s) => s.subtotals.map((t) => centsOf(t.tax_amount)))) ===
      sum(lines.map((l) => centsOf(l.tax_amount))),
    "every line tax is in a scheme",
  );

  const subtotal = sum(lines.map((l) => centsOf(l.line_extension)));
  const taxTotal = sum(schemes.map((s) => centsOf(s.tax_amount)));
  const exclusive = sum(
    lineTaxes.filter((t) => t.percent !== undefined).map((t) => centsOf(t.taxable_amount as string)),
  );
  const docCharges = exactJson<Charge[]>(doc.allowance_charge_amounts as string);
  const allowances = sum(docCharges.filter((c) => !c.charge).map((c) => centsOf(c.amount)));
  const charges = sum(docCharges.filter((c) => c.charge).map((c) => centsOf(c.amount)));
  for (const c of docCharges) {
    check(centsOf(c.base_amount) === subtotal, "a document discount's base is the LineExtensionAmount");
    if (c.percent !== null)
      check(centsOf(c.amount) === pct(subtotal, c.percent), "a document percent of its base");
  }
  check(centsOf(doc.subtotal as string) === subtotal, "FAU02 LineExtensionAmount");
  check(centsOf(doc.tax_exclusive_amount as string) === exclusive, "FAU04 TaxExclusiveAmount");
  check(centsOf(doc.tax_total as string) === taxTotal, "tax_total");
  check(centsOf(doc.tax_inclusive_amount as string) === subtotal + taxTotal, "FAU06 TaxInclusiveAmount");
  check(centsOf(doc.allowance_total_amount as string) === allowances, "FAU08 AllowanceTotalAmount");
  check(centsOf(doc.charge_total_amount as string) === charges, "ChargeTotalAmount");
  const payable = subtotal + taxTotal - allowances + charges;
  check(centsOf(doc.total as string) === payable, "FAU14 PayableAmount");
  const prepaid = sum(
    exactJson<{ paid_amount: string }[]>(doc.prepayment_amounts as string).map((p) => centsOf(p.paid_amount)),
  );
  const prepaidInputs = exactJson<{ amount: string }[]>(doc.prepayment_inputs as string);
  check(
    prepaid === sum(prepaidInputs.map((p) => cents(mul(dec(p.amount), rate)))),
    "PrepaidAmount: each advance × rate",
  );
  check(centsOf(doc.prepaid_amount as string) === prepaid, "PrepaidAmount");
  const withholdings = exactJson<Scheme[]>(doc.withholding_totals as string);
  const iva = sum(schemes.filter((s) => s.code === "01").map((s) => centsOf(s.tax_amount)));
  for (const w of withholdings) {
    const [t] = w.subtotals;
    if (!t) continue;
    check(
      centsOf(t.taxable_amount as string) === (w.code === "05" ? iva : subtotal),
      `withholding ${w.code} base`,
    );
    check(
      centsOf(t.tax_amount) === pct(centsOf(t.taxable_amount as string), t.percent as string),
      `FAT07 ${w.code}`,
    );
    check(centsOf(w.tax_amount) === centsOf(t.tax_amount), `FAT02 ${w.code}`);
  }
  const withheld = sum(withholdings.map((w) => centsOf(w.tax_amount)));
  check(centsOf(doc.withholding_total_amount as string) === withheld, "withholding_total_amount");
  check(centsOf(doc.net_payable_amount as string) === payable - withheld - prepaid, "net_payable_amount");
  // CUFE's ValImp1–3: the document TaxTotals of 01, 04, 03, first and in that order when present
  const order = schemes.map((s) => s.code).filter((c) => ["01", "04", "03"].includes(c));
  check(
    JSON.stringify(order) === JSON.stringify(["01", "04", "03"].filter((c) => order.includes(c))),
    "01/04/03 order",
  );
  check(
    schemes.slice(0, order.length).every((s) => order.includes(s.code)),
    "01/04/03 first",
  );
  return wrong;
}
const at6 = (a: Dec) => round(a, 6).n;
const eq = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined ? at(dec(a), 12) === at(dec(b), 12) : a === b;

describe("random drafts within the bounds", () => {
  it("always satisfy DIAN's arithmetic of lines, taxes, withholdings and totals", async () => {
    await fc.assert(
      fc.asyncProperty(invoice, async (draft) => {
        const id = await write(draft);
        expect(await violations(id)).toEqual([]);
      }),
      { numRuns: 150, endOnFailure: true },
    );
  }, 180_000);
});

describe("credit notes over random invoices", () => {
  const part = fc.record({
    line: fc.nat(5),
    kind: fc.constantFrom("quantity", "amount", "rest"),
    share: fc.integer({ min: 1, max: 120 }), // percent of what the line has: may ask for more than is left
  });

  /** Per line of the invoice: what stands credited above what it has, units, base or a tax; [] when none. */
  async function overCredited(invoiceId: string): Promise<unknown[]> {
    return db.superuser(
      `with standing as (
         select c.* from public.credit_note_lines c join public.invoice_lines l on l.id = c.invoice_line_id
          where l.invoice_id = $1 and c.released_at is null),
       per_code as (
         select s.invoice_line_id, t ->> 'code' as code, sum((t ->> 'tax_amount')::numeric) as credited
           from standing s, jsonb_array_elements(s.tax_subtotals) t group by 1, 2),
       line_codes as (
         select l.id, t ->> 'code' as code, (t ->> 'tax_amount')::numeric as amount
           from public.invoice_lines l, jsonb_array_elements(l.tax_subtotals) t where l.invoice_id = $1)
       select l.id, 'units or base' as what from public.invoice_lines l
         join (select invoice_line_id, sum(credited_quantity) u, sum(line_extension) b from standing group by 1) x
           on x.invoice_line_id = l.id
        where x.u > l.quantity or x.b > l.line_extension
       union all
       select p.invoice_line_id, 'tax ' || p.code from per_code p
         left join line_codes c on c.id = p.invoice_line_id and c.code = p.code
        where p.credited > coalesce(c.amount, 0)
       union all
       -- a line credited whole is credited to the cent, tax by tax
       select c.id, 'tax left on a whole line ' || c.code from line_codes c
         join public.invoice_lines l on l.id = c.id
         join (select invoice_line_id, sum(credited_quantity) u, sum(line_extension) b from standing group by 1) x
           on x.invoice_line_id = l.id
         left join per_code p on p.invoice_line_id = c.id and p.code = c.code
        where x.u = l.quantity and x.b = l.line_extension and coalesce(p.credited, 0) <> c.amount
       union all
       -- each note: its totals are its lines' (FAU02, FAU06, FAU14 of the note)
       select n.id, 'note totals' from public.credit_notes n
         join (select credit_note_id, sum(line_extension) b, sum(tax_amount) t from public.credit_note_lines group by 1) y
           on y.credit_note_id = n.id
        where n.invoice_id = $1
          and (n.subtotal <> y.b or n.tax_total <> y.t or n.tax_inclusive_amount <> y.b + y.t
               or n.total <> y.b + y.t - n.allowance_total_amount + n.charge_total_amount)`,
      [invoiceId],
    );
  }

  it("never credit more than a line's units, base or any of its taxes, and credit a whole line to the cent", async () => {
    await fc.assert(
      fc.asyncProperty(invoice, fc.array(part, { minLength: 1, maxLength: 4 }), async (draft, parts) => {
        const id = await write({ ...draft, allowance_charges: [], prepayments: [] });
        await setInvoiceStatus(db, id, "transmitida");
        const lineRows = await db.superuser<{ id: string; quantity: string; base: string }>(
          `select id, trim_scale(quantity)::text as quantity, line_extension::text as base
             from public.invoice_lines where invoice_id = $1 order by position`,
          [id],
        );
        for (const p of parts) {
          const l = lineRows[p.line % lineRows.length];
          if (!l) continue;
          const share = (text: string, scale: number) => (Number(text) * (p.share / 100)).toFixed(scale);
          const ask =
            p.kind === "quantity"
              ? { line_id: l.id, quantity: share(l.quantity, 6) }
              : p.kind === "amount"
                ? { line_id: l.id, amount: share(draft.currency === "COP" ? l.base : "1", 2) }
                : { line_id: l.id };
          const concept = p.kind === "amount" ? "3" : "1";
          const zero =
            "quantity" in ask
              ? Number(ask.quantity) === 0
              : "amount" in ask
                ? Number(ask.amount) === 0
                : false;
          if (zero) continue;
          await db
            .superuser(
              "select public.einv_credit_note_create($1, $2, $3, 'Prueba', $4::text::jsonb, $5, 60, now())",
              [tenant.org.id, id, concept, JSON.stringify([ask]), tenant.operador.id],
            )
            .catch((error: { code?: string; message?: string }) => {
              // what is refused is refused for what is left, never for anything else
              expect(error.code).toBe("P0001");
              expect(error.message).toMatch(
                /^(credit_exceeds_line|line_already_credited|credit_below_a_cent):/,
              );
            });
          expect(await overCredited(id)).toEqual([]);
        }
        // then everything left: the notes together are the invoice, to the cent
        await db
          .superuser("select public.einv_credit_note_create($1, $2, '2', 'Anulación', null, $3, 60, now())", [
            tenant.org.id,
            id,
            tenant.operador.id,
          ])
          .catch((error: { message?: string }) => expect(error.message).toMatch(/^nothing_left_to_credit/));
        expect(await overCredited(id)).toEqual([]);
        const [totals] = await db.superuser<{
          invoice: string;
          credited: string;
          tax: string;
          credited_tax: string;
        }>(
          `select i.total::text as invoice, sum(n.total)::text as credited, i.tax_total::text as tax,
                  sum(n.tax_total)::text as credited_tax
             from public.invoices i join public.credit_notes n on n.invoice_id = i.id
            where i.id = $1 group by i.id`,
          [id],
        );
        expect(totals?.credited).toBe(totals?.invoice);
        expect(totals?.credited_tax).toBe(totals?.tax);
      }),
      { numRuns: 60, endOnFailure: true },
    );
  }, 240_000);
});
