/**
 * Documents for the provider tests: fresh reference and number each time, so no test depends on
 * another's submissions (the sandbox rejects a CUFE it has already accepted for another document).
 */
import { randomInt, randomUUID } from "node:crypto";
import type { SubmitDocumentRequest } from "../../shared/providers/protocol.ts";

export const SANDBOX_KEY = "sk_sandbox_test_0001";

/**
 * 2 × 50.000 at 19 % IVA and 1 × 10.000 not taxed: subtotal 110.000, IVA 19.000, total 129.000.
 * `change` edits the copy before it is returned.
 */
export function makeDocument(change?: (doc: SubmitDocumentRequest) => void): SubmitDocumentRequest {
  const doc: SubmitDocumentRequest = {
    kind: "invoice",
    reference: randomUUID(),
    environment: "uat",
    number: `SETP${randomInt(1_000_000, 999_999_999)}`,
    issue_date: "2026-11-20",
    issue_time: "10:30:00-05:00",
    currency: "COP",
    issuer: {
      nit: "900123456",
      check_digit: "7",
      legal_name: "Empresa Demo S.A.S.",
      technical_key: "fc8eac422eba16e22ffd8c6f94b3f40a6e38162c",
    },
    buyer: { id_type: "13", id_number: "1020304050", name: "Ana Gómez", email: "ana@example.com" },
    lines: [
      {
        position: 1,
        description: "Servicio de consultoría",
        quantity: "2",
        unit_price: "50000.00",
        line_extension: "100000.00",
        tax_code: "01",
        tax_rate: "19.00",
        tax_amount: "19000.00",
      },
      {
        position: 2,
        description: "Libro técnico",
        quantity: "1",
        unit_price: "10000.00",
        line_extension: "10000.00",
        tax_code: "ZZ",
        tax_rate: "0.00",
        tax_amount: "0.00",
      },
    ],
    totals: { subtotal: "110000.00", tax_total: "19000.00", total: "129000.00" },
  };
  change?.(doc);
  return doc;
}
