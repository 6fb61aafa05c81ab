/**
 * The independent checks of a signed DIAN document, with Debian's command-line tools (`.ci/run`
 * installs them): `xmlsec1` verifies the XAdES signature (an implementation that shares nothing with
 * ours), `xmllint --schema` validates against the OASIS UBL 2.1 schemas and DIAN's extension schema,
 * both vendored under shared/fiscal/co/dian/schemas/ (docs/dian.md gives the same command lines).
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { STS_NAMESPACE } from "../../shared/fiscal/co/dian/ubl.ts";

export const SCHEMAS = fileURLToPath(new URL("../../shared/fiscal/co/dian/schemas/", import.meta.url));

export interface ToolResult {
  ok: boolean;
  /** What the tool printed (stdout and stderr). */
  output: string;
}

function run(command: string, args: string[]): Promise<ToolResult> {
  return new Promise((resolve) => {
    execFile(command, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ ok: error === null, output: `${stdout}${stderr}` });
    });
  });
}

/** A scratch folder for the files the tools read; removed by `cleanup`. */
function scratch(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "einv-dian-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * `xmlsec1 --verify` of the document's XAdES signature: the chain up to `caPem`, the three
 * references and the signature value. xmlsec1 does not know XAdES, so the Ids of KeyInfo and
 * SignedProperties are declared to it; it does not look at the policy hash (the tests read that).
 */
export async function xmlsecVerify(xml: Uint8Array, caPem: string): Promise<ToolResult> {
  const { dir, cleanup } = scratch();
  try {
    writeFileSync(join(dir, "document.xml"), xml);
    writeFileSync(join(dir, "ca.pem"), caPem);
    return await run("xmlsec1", [
      "--verify",
      "--trusted-pem",
      join(dir, "ca.pem"),
      "--id-attr:Id",
      "http://uri.etsi.org/01903/v1.3.2#:SignedProperties",
      "--id-attr:Id",
      "http://www.w3.org/2000/09/xmldsig#:KeyInfo",
      join(dir, "document.xml"),
    ]);
  } finally {
    cleanup();
  }
}

const UBL = "urn:oasis:names:specification:ubl:schema:xsd:";
const MAIN_SCHEMA = {
  invoice: [`${UBL}Invoice-2`, "UBL-Invoice-2.1.xsd"],
  credit_note: [`${UBL}CreditNote-2`, "UBL-CreditNote-2.1.xsd"],
  attached_document: [`${UBL}AttachedDocument-2`, "UBL-AttachedDocument-2.1.xsd"],
  application_response: [`${UBL}ApplicationResponse-2`, "UBL-ApplicationResponse-2.1.xsd"],
} as const;

/** The UBL documents `xmllintValidate` knows. */
export type UblKind = keyof typeof MAIN_SCHEMA;

/**
 * DIAN_UBL_Structures.xsd as the validation uses it. Its `coID2Type` lists identification types
 * (11 … 91) as the values of `schemeID`, while Anexo 1.9 — and DIAN's own signed answers — put the
 * NIT's check digit there (`schemeID="4"` for DIAN's 800197268): the schema predates that use, so
 * it also accepts the digits 0–9. Nothing else of DIAN's schema changes.
 */
function dianSchemaAsUsed(): string {
  const original = readFileSync(join(SCHEMAS, "maindoc", "DIAN_UBL_Structures.xsd"), "utf8");
  const first = '<enumeration value="11"/>';
  if (original.split(first).length !== 2)
    throw new Error("DIAN_UBL_Structures.xsd changed: review the schemeID patch");
  const digits = Array.from({ length: 10 }, (_, d) => `<enumeration value="${d}"/>`).join("");
  return original.replace(first, `${digits}${first}`);
}

/**
 * `xmllint --noout --schema` of a document against the UBL 2.1 main schema of its kind and DIAN's
 * extension schema together: UBL's ExtensionContent is `lax`, so the `sts:DianExtensions` and the
 * `ds:Signature` are checked against every schema loaded. A credit note's `sts` namespace is DIAN's
 * version-1 one, which no schema declares: its extension is checked under the 2.1 namespace. An
 * ApplicationResponse's is checked against UBL only: DIAN's own answers leave out the `sts:QRCode`
 * its schema requires ([F] Odoo's recorded ApplicationResponse), and the stand-in's do as DIAN's.
 * An AttachedDocument's embedded documents are text to the schema: check them on their own
 * (`embeddedDocuments`).
 */
export async function xmllintValidate(xml: Uint8Array, kind: UblKind): Promise<ToolResult> {
  const { dir, cleanup } = scratch();
  try {
    mkdirSync(join(dir, "maindoc"));
    symlinkSync(join(SCHEMAS, "common"), join(dir, "common"));
    symlinkSync(join(SCHEMAS, "maindoc", MAIN_SCHEMA[kind][1]), join(dir, "maindoc", MAIN_SCHEMA[kind][1]));
    writeFileSync(join(dir, "maindoc", "DIAN_UBL_Structures.xsd"), dianSchemaAsUsed());
    writeFileSync(
      join(dir, "maindoc", "document-and-dian.xsd"),
      `<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:einvoicing:dian-check">` +
        `<xsd:import namespace="${MAIN_SCHEMA[kind][0]}" schemaLocation="${MAIN_SCHEMA[kind][1]}"/>` +
        (kind === "application_response"
          ? ""
          : `<xsd:import namespace="${STS_NAMESPACE.invoice}" schemaLocation="DIAN_UBL_Structures.xsd"/>`) +
        "</xsd:schema>",
    );
    const text = new TextDecoder().decode(xml);
    writeFileSync(
      join(dir, "document.xml"),
      kind === "credit_note"
        ? text.replace(`"${STS_NAMESPACE.credit_note}"`, `"${STS_NAMESPACE.invoice}"`)
        : text,
    );
    return await run("xmllint", [
      "--noout",
      "--schema",
      join(dir, "maindoc", "document-and-dian.xsd"),
      join(dir, "document.xml"),
    ]);
  } finally {
    cleanup();
  }
}

/**
 * The two documents an AttachedDocument carries as CDATA text, as a parser reads them (libxml2,
 * through `xmllint --xpath`; line ends normalised to LF as XML requires): the signed Invoice or
 * CreditNote and the ApplicationResponse, as UTF-8 bytes to verify and validate on their own.
 */
export async function embeddedDocuments(
  xml: Uint8Array,
): Promise<{ document: Uint8Array; applicationResponse: Uint8Array }> {
  const { dir, cleanup } = scratch();
  try {
    writeFileSync(join(dir, "attached.xml"), xml);
    const read = async (path: string) => {
      const result = await run("xmllint", [
        "--xpath",
        `string(/*[local-name()="AttachedDocument"]/${path}/*[local-name()="Attachment"]/*[local-name()="ExternalReference"]/*[local-name()="Description"])`,
        join(dir, "attached.xml"),
      ]);
      if (!result.ok) throw new Error(`xmllint could not read ${path}: ${result.output}`);
      // xmllint ends what it prints with a newline of its own
      return new TextEncoder().encode(result.output.replace(/\n$/, ""));
    };
    return {
      document: await read("."),
      applicationResponse: await read(
        '*[local-name()="ParentDocumentLineReference"]/*[local-name()="DocumentReference"]',
      ),
    };
  } finally {
    cleanup();
  }
}
