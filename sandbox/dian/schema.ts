/**
 * Rule ZB01 ("Fallo en el esquema XML del archivo"): the document against the OASIS UBL 2.1 schema
 * of its kind and DIAN's extension schema, both vendored under shared/providers/dian/schemas/ with
 * the README's two adjustments (devkit/dian/schema-files.ts) — the same check the tests make with
 * `xmllint --schema`, made here in-process with libxml2-wasm: libxml2 itself compiled to WebAssembly,
 * which runs unchanged on Deno (`npm start`, where no xmllint is installed) and on Node.
 *
 * The schemas compile once (~120 ms) on first use; a document then validates in a few
 * milliseconds. UBL's ExtensionContent is `lax`, so one schema set that loads the Invoice, the
 * CreditNote, the DebitNote and DIAN's structures checks the `sts:DianExtensions` and the
 * `ds:Signature` too.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  XmlBufferInputProvider,
  XmlDocument,
  XmlValidateError,
  XsdValidator,
  xmlRegisterInputProvider,
} from "libxml2-wasm";
import { dianSchemaAsUsed, SCHEMAS, withSchemaNamespaces } from "../../devkit/dian/schema-files.ts";

const BASE = "dian-schemas";
const INVOICE = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2";
const CREDIT_NOTE = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2";
const DEBIT_NOTE = "urn:oasis:names:specification:ubl:schema:xsd:DebitNote-2";
const STS = "dian:gov:co:facturaelectronica:Structures-2-1";

let validator: XsdValidator | undefined;

function compile(): XsdValidator {
  const files: Record<string, Uint8Array> = {};
  for (const folder of ["common", "maindoc"]) {
    for (const name of readdirSync(join(SCHEMAS, folder))) {
      if (name.endsWith(".xsd"))
        files[`${BASE}/${folder}/${name}`] = readFileSync(join(SCHEMAS, folder, name));
    }
  }
  const encode = (text: string) => new TextEncoder().encode(text);
  files[`${BASE}/maindoc/DIAN_UBL_Structures.xsd`] = encode(dianSchemaAsUsed());
  const wrapper =
    `<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:einvoicing:dian-stand-in">` +
    `<xsd:import namespace="${INVOICE}" schemaLocation="UBL-Invoice-2.1.xsd"/>` +
    `<xsd:import namespace="${CREDIT_NOTE}" schemaLocation="UBL-CreditNote-2.1.xsd"/>` +
    `<xsd:import namespace="${DEBIT_NOTE}" schemaLocation="UBL-DebitNote-2.1.xsd"/>` +
    `<xsd:import namespace="${STS}" schemaLocation="DIAN_UBL_Structures.xsd"/>` +
    "</xsd:schema>";
  xmlRegisterInputProvider(new XmlBufferInputProvider(files));
  const schema = XmlDocument.fromString(wrapper, { url: `${BASE}/maindoc/stand-in.xsd` });
  try {
    return XsdValidator.fromDoc(schema);
  } finally {
    schema.dispose();
  }
}

/** Compiles the schemas now rather than on the first document (a host's start-up). */
export function warmSchemas(): void {
  validator ??= compile();
}

/** The first schema error of `xml`, or null when it is valid. */
export function schemaError(xml: string): string | null {
  warmSchemas();
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromString(withSchemaNamespaces(xml));
  } catch (error) {
    return (error as Error).message.split("\n")[0] ?? "not well-formed";
  }
  try {
    (validator as XsdValidator).validate(doc);
    return null;
  } catch (error) {
    if (error instanceof XmlValidateError) return error.details[0]?.message.trim() ?? error.message;
    return (error as Error).message;
  } finally {
    doc.dispose();
  }
}
