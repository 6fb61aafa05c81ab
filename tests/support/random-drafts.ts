/**
 * Random invoice drafts within the database's bounds (supabase/migrations/…_amounts.sql): several
 * taxes a line by percentage and per unit, line and document discounts and charges, withholdings,
 * advances, pesos or dollars with a rate. `writeDraft` writes one as a web app writes it, its inputs
 * only, and the database computes every amount. Used by the properties of the database's arithmetic
 * (tests/db/amounts-properties.test.ts) and of the stand-in's (tests/dian/stand-in-properties.test.ts).
 */
import fc from "fast-check";
import type { TestDatabase } from "../../devkit/database.ts";
import type { Tenant } from "../../devkit/factories.ts";

const decimalText = (max: number, scale: number, min = 0) =>
  fc
    .integer({ min: Math.round(min * 10 ** scale), max: Math.round(max * 10 ** scale) })
    .map((n) => (n / 10 ** scale).toFixed(scale));

const percentTax = fc.oneof(
  fc.constantFrom(0, 5, 16, 19).map((percent) => ({ code: "01", percent })),
  fc.constantFrom(2, 4, 8, 16).map((percent) => ({ code: "04", percent })),
  decimalText(2, 3, 0.001).map((percent) => ({ code: "03", percent })),
  fc.constantFrom(10, 15, 20).map((percent) => ({ code: "35", percent })),
);
const unitTax = fc.oneof(
  decimalText(500, 2, 0.01).map((per_unit_amount) => ({ code: "22", per_unit_amount })),
  fc
    .record({
      per_unit_amount: fc.constantFrom(18, 35, 55, 65),
      unit_measure: fc.integer({ min: 100, max: 3500 }),
    })
    .map((t) => ({ code: "34", per_quantity: 100, measure_unit_code: "MLT", ...t })),
);
const taxes = fc
  .tuple(
    fc.uniqueArray(percentTax, { maxLength: 3, selector: (t) => t.code }),
    fc.option(unitTax, { nil: undefined }),
  )
  .map(([percent, unit]) => (unit ? [...percent, unit] : percent));
const lineCharges = fc.array(
  fc.oneof(
    decimalText(40, 3, 0.001).map((percent) => ({ charge: false, reason_code: "00", percent })),
    decimalText(20, 3, 0.001).map((percent) => ({ charge: true, percent })),
    decimalText(100, 2, 0.01).map((amount) => ({ charge: true, amount })),
  ),
  { maxLength: 2 },
);
/** A line; in dollars its prices stay small enough for every amount in pesos to stay in bounds. */
const line = (foreign: boolean) =>
  fc.record({
    description: fc.constant("Artículo"),
    unit_code: fc.constant("94"),
    quantity: fc.oneof(fc.integer({ min: 1, max: 50 }).map(String), decimalText(200, 6, 0.000001)),
    unit_price: foreign
      ? fc.oneof(decimalText(1_000, 2), decimalText(50, 6))
      : fc.oneof(decimalText(2_000_000, 2), decimalText(5_000, 6)),
    taxes,
    allowance_charges: lineCharges,
  });
export const randomDraft = fc.constantFrom("COP", "COP", "USD").chain((currency) =>
  fc.record({
    currency: fc.constant(currency),
    rate: decimalText(5_000, 6, 0.5),
    lines: fc.array(line(currency !== "COP"), { minLength: 1, maxLength: 6 }),
    allowance_charges: fc.array(
      fc.oneof(
        decimalText(10, 3, 0.001).map((percent) => ({ charge: false, reason_code: "01", percent })),
        decimalText(10, 3, 0.001).map((percent) => ({ charge: true, percent })),
      ),
      { maxLength: 2 },
    ),
    withholdings: fc.uniqueArray(
      fc.oneof(
        fc.constant({ code: "05", percent: 15 }),
        decimalText(11, 3, 0.1).map((percent) => ({ code: "06", percent })),
        decimalText(1.4, 3, 0.001).map((percent) => ({ code: "07", percent })),
      ),
      { maxLength: 3, selector: (w) => w.code },
    ),
    prepayments: fc.array(
      decimalText(100, 2, 0.01).map((amount) => ({ amount, received_date: "2026-11-01" })),
      { maxLength: 2 },
    ),
  }),
);
export type Draft = typeof randomDraft extends fc.Arbitrary<infer T> ? T : never;

/** DIAN's final consumer: a buyer every draft may have, so the whole invoice can be sent. */
const FINAL_CONSUMER = {
  buyer_id_type: "13",
  buyer_id_number: "222222222222",
  buyer_name: "Consumidor final",
};

/**
 * The draft written as the web app writes it (its inputs only), as one invoice and one lines insert,
 * numbered `number`, to DIAN's final consumer.
 */
export async function writeDraft(
  db: TestDatabase,
  tenant: Tenant,
  draft: Draft,
  number: string,
): Promise<string> {
  const foreign = draft.currency !== "COP";
  const [row] = await db.superuser<{ id: string }>(
    `insert into public.invoices (org_id, company_id, number, currency, exchange_rate, exchange_rate_date,
       allowance_charges, withholdings, prepayments, buyer_id_type, buyer_id_number, buyer_name)
     values ($1, $2, $3, $4, $5, $6, $7::text::jsonb, $8::text::jsonb, $9::text::jsonb, $10, $11, $12) returning id`,
    [
      tenant.org.id,
      tenant.company.id,
      number,
      draft.currency,
      foreign ? draft.rate : null,
      foreign ? "2026-11-20" : null,
      JSON.stringify(draft.allowance_charges),
      JSON.stringify(draft.withholdings),
      JSON.stringify(draft.prepayments),
      FINAL_CONSUMER.buyer_id_type,
      FINAL_CONSUMER.buyer_id_number,
      FINAL_CONSUMER.buyer_name,
    ],
  );
  const id = row?.id as string;
  await db.superuser(
    `insert into public.invoice_lines (invoice_id, org_id, position, description, unit_code, quantity, unit_price,
       taxes, allowance_charges)
     select $1, $2, l.p, l.description, l.unit_code, l.quantity, l.unit_price, l.taxes, l.allowance_charges
       from rows from (jsonb_to_recordset($3::text::jsonb) as (description text, unit_code text, quantity numeric,
            unit_price numeric, taxes jsonb, allowance_charges jsonb)) with ordinality as l(description, unit_code,
            quantity, unit_price, taxes, allowance_charges, p)`,
    [id, tenant.org.id, JSON.stringify(draft.lines)],
  );
  return id;
}
