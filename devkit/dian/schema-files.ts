/**
 * The vendored UBL 2.1 and DIAN schemas (shared/providers/dian/schemas/, see its README) as the
 * validations use them — `xmllint` in the tests (./xml-tools.ts) and libxml2-wasm in the DIAN
 * stand-in (sandbox/dian/schema.ts) — with the two adjustments the README explains.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { STS_NAMESPACE } from "../../shared/providers/dian/ubl.ts";

export const SCHEMAS = fileURLToPath(new URL("../../shared/providers/dian/schemas/", import.meta.url));

/**
 * DIAN_UBL_Structures.xsd as the validation uses it. Its `coID2Type` lists identification types
 * (11 … 91) as the values of `schemeID`, while Anexo 1.9 — and DIAN's own signed answers — put the
 * NIT's check digit there (`schemeID="4"` for DIAN's 800197268): the schema predates that use, so
 * it also accepts the digits 0–9. Nothing else of DIAN's schema changes.
 */
export function dianSchemaAsUsed(): string {
  const original = readFileSync(join(SCHEMAS, "maindoc", "DIAN_UBL_Structures.xsd"), "utf8");
  const first = '<enumeration value="11"/>';
  if (original.split(first).length !== 2)
    throw new Error("DIAN_UBL_Structures.xsd changed: review the schemeID patch");
  const digits = Array.from({ length: 10 }, (_, d) => `<enumeration value="${d}"/>`).join("");
  return original.replace(first, `${digits}${first}`);
}

/**
 * A credit note's `sts` namespace is DIAN's version-1 one, which no schema declares: its extension is
 * checked under the 2.1 namespace.
 */
export function withSchemaNamespaces(text: string): string {
  return text.replace(`"${STS_NAMESPACE.credit_note}"`, `"${STS_NAMESPACE.invoice}"`);
}
