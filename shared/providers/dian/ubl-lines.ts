/**
 * A line of a DIAN UBL 2.1 document — InvoiceLine, CreditNoteLine, and DebitNoteLine the same way
 * — from the protocol's line: the quantity, its LineExtensionAmount (quantity × price − discounts
 * + charges), its discounts and charges, one TaxTotal per tax (FAX01), the item, the price. The
 * schemas put the line's AllowanceCharge before its TaxTotal in an InvoiceLine and after it in a
 * CreditNoteLine or DebitNoteLine (common/UBL-CommonAggregateComponents-2.1.xsd).
 */

import type { Line, SubmitDocumentRequest } from "../../ports/providers/protocol.ts";
import { text } from "./parties.ts";
import { allowanceCharge, amount, lineTaxTotal } from "./ubl-amounts.ts";
import { el } from "./xml.ts";

/** What one kind of document calls its lines, and where their discounts and charges go. */
export interface LineNames {
  /** `cac:InvoiceLine`, `cac:CreditNoteLine`, `cac:DebitNoteLine`. */
  element: string;
  /** `cbc:InvoicedQuantity`, `cbc:CreditedQuantity`, `cbc:DebitedQuantity`. */
  quantity: string;
  /** Whether AllowanceCharge comes before TaxTotal (InvoiceLine) or after it (the notes' lines). */
  allowanceChargeFirst: boolean;
}

export function documentLine(doc: Pick<SubmitDocumentRequest, "currency">, line: Line, names: LineNames) {
  const unit = line.unit_code ?? "94";
  const charges = (line.allowance_charges ?? []).map((a) => allowanceCharge(doc, a));
  const taxes = line.taxes.map((t) => lineTaxTotal(doc, t));
  return el(
    names.element,
    {},
    text("cbc:ID", String(line.position)),
    text(names.quantity, line.quantity, { unitCode: unit }),
    amount(doc, "cbc:LineExtensionAmount", line.line_extension),
    ...(names.allowanceChargeFirst ? [...charges, ...taxes] : [...taxes, ...charges]),
    el(
      "cac:Item",
      {},
      text("cbc:Description", line.description),
      el(
        "cac:StandardItemIdentification",
        {},
        // 999: the issuer's own coding ("Estándar de adopción del contribuyente")
        text("cbc:ID", line.code ?? String(line.position), { schemeID: "999" }),
      ),
    ),
    el(
      "cac:Price",
      {},
      amount(doc, "cbc:PriceAmount", line.unit_price),
      text("cbc:BaseQuantity", line.quantity, { unitCode: unit }),
    ),
  );
}
