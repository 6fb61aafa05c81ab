/**
 * The independent checks of a signed DIAN document, with Debian's command-line tools (`.ci/run`
 * installs them): `xmlsec1` verifies the XAdES signature (an implementation that shares nothing with
 * ours), `xmllint --schema` validates against the OASIS UBL 2.1 schemas and DIAN's extension schema,
 * both vendored under shared/providers/dian/schemas/ (docs/dian.md gives the same command lines).
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { STS_NAMESPACE } from "../../shared/providers/dian/ubl.ts";
import { dianSchemaAsUsed, SCHEMAS, withSchemaNamespaces } from "./schema-files.ts";

export { SCHEMAS };

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

/**
 * `xmlsec1 --verify` of a SOAP request's WS-Security signature, as brief §8 gives it: the reference
 * to `wsa:To` (whose `wsu:Id` is declared to xmlsec1) and the signature value, with the key of the
 * request's own BinarySecurityToken — xmlsec1 ignores the SecurityTokenReference that names it, so
 * the certificate is read out of the envelope and handed over as PEM.
 */
export async function xmlsecVerifyEnvelope(xml: Uint8Array): Promise<ToolResult> {
  const token = /<wsse:BinarySecurityToken[^>]*>([A-Za-z0-9+/=\s]+)<\/wsse:BinarySecurityToken>/.exec(
    new TextDecoder().decode(xml),
  )?.[1];
  if (!token) return { ok: false, output: "no wsse:BinarySecurityToken in the envelope" };
  const body = token.replace(/\s/g, "").replace(/(.{64})/g, "$1\n");
  const { dir, cleanup } = scratch();
  try {
    writeFileSync(join(dir, "envelope.xml"), xml);
    writeFileSync(
      join(dir, "token.pem"),
      `-----BEGIN CERTIFICATE-----\n${body.trimEnd()}\n-----END CERTIFICATE-----\n`,
    );
    return await run("xmlsec1", [
      "--verify",
      "--pubkey-cert-pem",
      join(dir, "token.pem"),
      "--id-attr:Id",
      "http://www.w3.org/2005/08/addressing:To",
      join(dir, "envelope.xml"),
    ]);
  } finally {
    cleanup();
  }
}

const UBL = "urn:oasis:names:specification:ubl:schema:xsd:";
const MAIN_SCHEMA = {
  invoice: [`${UBL}Invoice-2`, "UBL-Invoice-2.1.xsd"],
  credit_note: [`${UBL}CreditNote-2`, "UBL-CreditNote-2.1.xsd"],
  debit_note: [`${UBL}DebitNote-2`, "UBL-DebitNote-2.1.xsd"],
  attached_document: [`${UBL}AttachedDocument-2`, "UBL-AttachedDocument-2.1.xsd"],
  application_response: [`${UBL}ApplicationResponse-2`, "UBL-ApplicationResponse-2.1.xsd"],
} as const;

/** The UBL documents `xmllintValidate` knows. */
export type UblKind = keyof typeof MAIN_SCHEMA;

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
    writeFileSync(join(dir, "document.xml"), withSchemaNamespaces(new TextDecoder().decode(xml)));
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

/** The prefixes `xpathValues` declares: UBL's, DIAN's extension (2.1) and the signature's. */
export const XPATH_NAMESPACES = {
  inv: `${UBL}Invoice-2`,
  cn: `${UBL}CreditNote-2`,
  ad: `${UBL}AttachedDocument-2`,
  cac: `${UBL}CommonAggregateComponents-2`,
  cbc: `${UBL}CommonBasicComponents-2`,
  ext: `${UBL}CommonExtensionComponents-2`,
  sts: STS_NAMESPACE.invoice,
  stsv1: STS_NAMESPACE.credit_note,
  ds: "http://www.w3.org/2000/09/xmldsig#",
  xades: "http://uri.etsi.org/01903/v1.3.2#",
} as const;

/** Between two values in xmllint's answer: a character no document of ours carries. */
const SEPARATOR = "\u241e";

/**
 * An expression with its prefixed names spelled out for libxml2, which registers no prefix for
 * `xmllint --xpath`: `cbc:ID` becomes `*[namespace-uri()='…'][local-name()='ID']`. Quoted
 * literals are left as they are.
 */
function withoutPrefixes(expression: string): string {
  const uris: Record<string, string> = XPATH_NAMESPACES;
  return expression
    .split(/('[^']*')/)
    .map((part) =>
      part.startsWith("'")
        ? part
        : part.replace(
            /(?<![\w@.-])([a-z][\w]*):([A-Za-z_][\w.-]*)/g,
            (whole, prefix: string, name: string) => {
              const uri = uris[prefix];
              if (!uri) throw new Error(`xpathValues: no namespace for the prefix of ${whole}`);
              return `*[namespace-uri()='${uri}'][local-name()='${name}']`;
            },
          ),
    )
    .join("");
}

/**
 * Each XPath 1.0 expression evaluated on `xml` by libxml2 (`xmllint --xpath`, one process for them
 * all: their `string()` values joined by `concat`), with the prefixes of XPATH_NAMESPACES: a string
 * for `string(…)`, a number's text for `count(…)`, "true"/"false" for a boolean, each whole (the
 * `--shell`'s answers are cut at 40 bytes). An independent reading of what a document says.
 */
export async function xpathValues(xml: Uint8Array, expressions: readonly string[]): Promise<string[]> {
  if (expressions.some((e) => e.includes(SEPARATOR)))
    throw new Error("xpathValues: separator in an expression");
  const { dir, cleanup } = scratch();
  try {
    writeFileSync(join(dir, "document.xml"), xml);
    const joined = `concat(${expressions.map((e) => `string(${withoutPrefixes(e)}), '${SEPARATOR}'`).join(", ")}, '')`;
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        "xmllint",
        ["--xpath", joined, join(dir, "document.xml")],
        { maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`xmllint --xpath: ${stderr}`)) : resolve(stdout),
      );
    });
    const values = output.replace(/\n$/, "").split(SEPARATOR);
    // the last is what follows the last separator: nothing
    if (values.pop() !== "" || values.length !== expressions.length) {
      throw new Error(`xmllint answered ${values.length} of ${expressions.length} expressions:\n${output}`);
    }
    return values;
  } finally {
    cleanup();
  }
}
