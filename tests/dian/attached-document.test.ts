/**
 * The AttachedDocument DIAN mode builds: signed by the issuer so xmlsec1 verifies it, valid against
 * UBL 2.1's AttachedDocument schema, carrying the signed document and DIAN's ApplicationResponse
 * byte for byte (each still verifies and validates once read back from its CDATA section), naming
 * the document's CUFE/CUDE, the same bytes when rebuilt, and refusing inputs that do not belong
 * together. The CDATA decision (./xml.ts: the bytes hold CDATA, the digest its text) is checked
 * where it matters: an ApplicationResponse with CRLF line ends and a `]]>` in it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createTestSigners, type TestSigners } from "../../devkit/dian/certificates.ts";
import { dianCreditNote, dianInvoice, signedAtIssue } from "../../devkit/dian/documents.ts";
import { embeddedDocuments, xmllintValidate, xmlsecVerify } from "../../devkit/dian/xml-tools.ts";
import { sandboxApplicationResponse } from "../../sandbox/application-response.ts";
import {
  type AttachedDocumentInput,
  buildAttachedDocument,
} from "../../shared/providers/dian/attached-document.ts";
import type { Signer } from "../../shared/providers/dian/certificate.ts";
import { buildSignedDocument } from "../../shared/providers/dian/document.ts";
import type { DianDocumentInput } from "../../shared/providers/dian/input.ts";
import { signDocument } from "../../shared/providers/dian/signature.ts";
import { el } from "../../shared/providers/dian/xml.ts";

let pki: TestSigners;
let issuer: Signer;
let dian: Signer;

beforeAll(async () => {
  pki = await createTestSigners([
    { nit: "900123456", companyName: "Empresa Demo S.A.S." },
    { nit: "800197268", companyName: "DIAN de pruebas" },
  ]);
  [issuer, dian] = pki.signers.map((s) => s.signer) as [Signer, Signer];
}, 60_000);

const VALIDATED_AT = "2026-11-20T15:31:07.000Z"; // 10:31:07 in Colombia

/** The signed document of `input`, DIAN's (stand-in) validation of it, and the builder's input. */
async function accepted(input: DianDocumentInput): Promise<AttachedDocumentInput> {
  const signed = await buildSignedDocument(input, issuer, signedAtIssue(input));
  const applicationResponse = await sandboxApplicationResponse(
    input.document,
    {
      reference: input.document.reference,
      provider_reference: "dian-test",
      status: "accepted",
      authority_code: signed.authorityCode,
      qr_text: signed.qrText,
      message: "Documento validado por la DIAN",
      validated_at: VALIDATED_AT,
    },
    dian,
  );
  return {
    document: signed.xml,
    applicationResponse,
    facts: { ...input.document, authority_code: signed.authorityCode },
  };
}

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const encode = (text: string) => new TextEncoder().encode(text);
/** The container without its CDATA sections: what it says itself, not what it carries. */
const outside = (bytes: Uint8Array) => decode(bytes).replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, "");
const content = (xml: string, name: string) =>
  new RegExp(`<${name}(?: [^>]*)?>([^<]*)</${name}>`).exec(xml)?.[1];
const startTag = (xml: string, name: string) => new RegExp(`<${name}(?: [^>]*)?>`).exec(xml)?.[0] ?? "";

const invoice = dianInvoice(20);
const cases = [
  ["an invoice", "invoice", async () => invoice] as const,
  ["a partial credit note", "credit_note", async () => noteOf(true)] as const,
  ["a whole credit note", "credit_note", async () => noteOf(false)] as const,
];
async function noteOf(partial: boolean): Promise<DianDocumentInput> {
  const { authorityCode } = await buildSignedDocument(invoice, issuer, signedAtIssue(invoice));
  return dianCreditNote(invoice, authorityCode, partial);
}

describe.each(cases)("the AttachedDocument of %s", (_name, kind, make) => {
  it("verifies, validates, and carries the document and the response byte for byte, each verifying and validating", async () => {
    const input = await accepted(await make());
    const xml = await buildAttachedDocument(input, issuer);

    const own = await xmlsecVerify(xml, pki.caPem);
    expect(own.output).toContain("SignedInfo References (ok/all): 3/3");
    expect(own.ok).toBe(true);
    const schema = await xmllintValidate(xml, "attached_document");
    expect(schema.output).toContain("validates");
    expect(schema.ok).toBe(true);

    const { document, applicationResponse } = await embeddedDocuments(xml);
    expect(decode(document)).toBe(decode(input.document));
    expect(decode(applicationResponse)).toBe(decode(input.applicationResponse));
    expect((await xmlsecVerify(document, pki.caPem)).ok).toBe(true);
    expect((await xmllintValidate(document, kind)).ok).toBe(true);
    expect((await xmlsecVerify(applicationResponse, pki.caPem)).ok).toBe(true);
    expect((await xmllintValidate(applicationResponse, "application_response")).ok).toBe(true);
  });

  it("names the document's number and CUFE/CUDE, its parties, and DIAN's validation as the response says", async () => {
    const input = await accepted(await make());
    const text = outside(await buildAttachedDocument(input, issuer));
    const code = input.facts.authority_code;
    const scheme = kind === "invoice" ? "CUFE-SHA384" : "CUDE-SHA384";
    expect(text).toContain(`<cbc:UUID schemeName="${scheme}">${code}</cbc:UUID>`);
    expect(text.split(`>${code}</cbc:UUID>`)).toHaveLength(3); // the container's and the response reference's
    expect(content(text, "cbc:ParentDocumentID")).toBe(input.facts.number);
    expect(content(text, "cbc:ID")).toBe(input.facts.number);
    expect(content(text, "cbc:ProfileExecutionID")).toBe("2");
    expect(content(text, "cbc:DocumentType")).toBe("Contenedor de Factura Electrónica");
    expect(content(text, "cbc:IssueDate")).toBe("2026-11-20");
    expect(content(text, "cbc:IssueTime")).toBe("10:31:07-05:00");
    expect(content(text, "xades:SigningTime")).toBe("2026-11-20T10:31:07.000-05:00");
    expect(content(text, "cbc:ValidationResultCode")).toBe("02");
    expect(content(text, "cbc:ValidationDate")).toBe("2026-11-20");
    expect(content(text, "cbc:ValidationTime")).toBe("10:31:07-05:00");
    const sender = /<cac:SenderParty>([\s\S]*?)<\/cac:SenderParty>/.exec(text)?.[1] ?? "";
    expect(startTag(sender, "cbc:CompanyID")).toContain('schemeID="8"');
    expect(content(sender, "cbc:CompanyID")).toBe("900123456");
    const receiver = /<cac:ReceiverParty>([\s\S]*?)<\/cac:ReceiverParty>/.exec(text)?.[1] ?? "";
    expect(content(receiver, "cbc:CompanyID")).toBe(input.facts.buyer.id_number);
  });

  it("is the same bytes when built again, and other bytes at another signing time", async () => {
    const input = await accepted(await make());
    const first = await buildAttachedDocument(input, issuer);
    expect(decode(await buildAttachedDocument(input, issuer))).toBe(decode(first));
    const later = await buildAttachedDocument(input, issuer, {
      signingTime: "2026-11-21T08:00:00.000-05:00",
    });
    expect(decode(later)).not.toBe(decode(first));
    expect((await xmlsecVerify(later, pki.caPem)).ok).toBe(true);
  });
});

describe("the signature covers what the CDATA sections carry", () => {
  it("fails once a byte of the embedded document changes", async () => {
    const input = await accepted(invoice);
    const text = decode(await buildAttachedDocument(input, issuer));
    const tampered = text.replace("Artículo de prueba 1 ", "Artículo de prueba 7 ");
    expect(tampered).not.toBe(text);
    expect((await xmlsecVerify(encode(tampered), pki.caPem)).ok).toBe(false);
  });

  it("holds a response with CRLF line ends and a `]]>`, as a parser reads them, and every signature verifies", async () => {
    const input = await accepted(invoice);
    // a response signed over LF line ends, then written with CRLF (what a Windows writer sends):
    // its signature is over what a parser reads, so it still verifies
    const lf = await responseBytes(input.facts.authority_code, { note: "a]]>b" });
    const crlf = encode(decode(lf).replaceAll("\n", "\r\n"));
    expect((await xmlsecVerify(crlf, pki.caPem)).ok).toBe(true);
    const xml = await buildAttachedDocument({ ...input, applicationResponse: crlf }, issuer);
    // the bytes as given, a `]]>` apart (split across two sections)
    expect(decode(xml)).toContain(decode(crlf).replace("]]>", "]]]]><![CDATA[>"));
    expect((await xmlsecVerify(xml, pki.caPem)).ok).toBe(true);
    const { applicationResponse } = await embeddedDocuments(xml);
    expect(decode(applicationResponse)).toBe(decode(lf));
    expect((await xmlsecVerify(applicationResponse, pki.caPem)).ok).toBe(true);
  });
});

describe("a response with a byte-order mark", () => {
  it("is carried without it (before the XML declaration inside CDATA, no parser takes it), and still verifies", async () => {
    const input = await accepted(invoice);
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...input.applicationResponse]);
    const xml = await buildAttachedDocument({ ...input, applicationResponse: withBom }, issuer);
    expect((await xmlsecVerify(xml, pki.caPem)).ok).toBe(true);
    const { applicationResponse } = await embeddedDocuments(xml);
    expect(decode(applicationResponse)).toBe(decode(input.applicationResponse));
    expect(applicationResponse[0]).toBe("<".charCodeAt(0));
    expect((await xmlsecVerify(applicationResponse, pki.caPem)).ok).toBe(true);
  });
});

describe("inputs that do not belong together", () => {
  it("refuses a response that does not validate, or validates another document", async () => {
    const input = await accepted(invoice);
    const rejected = await responseBytes(input.facts.authority_code, { code: "04" });
    await expect(buildAttachedDocument({ ...input, applicationResponse: rejected }, issuer)).rejects.toThrow(
      /does not validate the document \(code 04\)/,
    );
    const other = await responseBytes("f".repeat(96));
    await expect(buildAttachedDocument({ ...input, applicationResponse: other }, issuer)).rejects.toThrow(
      /answers another document/,
    );
  });

  it("refuses a document the facts do not describe, or that is not a signed document", async () => {
    const input = await accepted(invoice);
    for (const facts of [
      { ...input.facts, number: "SETP990000001" },
      { ...input.facts, issue_date: "2026-11-21" },
      { ...input.facts, kind: "credit_note" as const },
    ]) {
      await expect(buildAttachedDocument({ ...input, facts }, issuer)).rejects.toThrow(RangeError);
    }
    const unsigned = encode(decode(input.document).replace(/^<\?xml[^>]*\?>/, ""));
    await expect(buildAttachedDocument({ ...input, document: unsigned }, issuer)).rejects.toThrow(
      /not a signed Invoice as the DIAN builder writes it/,
    );
    const withoutSignature = encode(
      decode(input.document).replace(/<ds:Signature [\s\S]*<\/ds:Signature>/, ""),
    );
    await expect(buildAttachedDocument({ ...input, document: withoutSignature }, issuer)).rejects.toThrow(
      /not a signed Invoice as the DIAN builder writes it/,
    );
    const control = encode(decode(input.document).replace("Artículo", "Art\u0001ículo"));
    await expect(buildAttachedDocument({ ...input, document: control }, issuer)).rejects.toThrow(
      /characters XML cannot carry/,
    );
  });

  it("refuses a response that is not UTF-8, has a DTD, is not an ApplicationResponse, or is too large", async () => {
    const input = await accepted(invoice);
    const text = decode(input.applicationResponse);
    const attempts: [Uint8Array, RegExp][] = [
      [Uint8Array.from([0x3c, 0xff, 0xfe]), /not UTF-8/],
      [encode(`<!DOCTYPE a [<!ENTITY x "y">]>${text.replace(/^<\?xml[^>]*\?>/, "")}`), /DTD/],
      [encode(text.replaceAll("ApplicationResponse", "Invoice")), /not a UBL ApplicationResponse/],
      [encode(text.slice(0, -10)), /not well-formed/],
      // a processing instruction's `</>`s once took back the levels nested after it
      [
        encode(
          `<?x >${"</>".repeat(80)}?>${text
            .replace(/^<\?xml[^>]*\?>/, "")
            .replace(
              "</ApplicationResponse>",
              `${"<a>".repeat(80)}${"</a>".repeat(80)}</ApplicationResponse>`,
            )}`,
        ),
        /nests more than 64 deep/,
      ],
      [encode(`</a>${text.replace(/^<\?xml[^>]*\?>/, "")}`), /not well-formed/],
      [new Uint8Array(1024 * 1024 + 1), /larger than/],
    ];
    for (const [applicationResponse, message] of attempts) {
      await expect(buildAttachedDocument({ ...input, applicationResponse }, issuer)).rejects.toThrow(message);
    }
  });
});

/**
 * A small signed ApplicationResponse about `documentKey` (not a schema-valid one: what the builder
 * reads, and whatever `note` puts in an attribute, where canonical XML leaves `>` as it is).
 */
async function responseBytes(
  documentKey: string,
  { code = "02", note }: { code?: string; note?: string } = {},
): Promise<Uint8Array> {
  const namespaces = {
    "": "urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2",
    cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    ds: "http://www.w3.org/2000/09/xmldsig#",
    ext: "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
    xades: "http://uri.etsi.org/01903/v1.3.2#",
  };
  const signatureSlot = el("ext:ExtensionContent");
  const root = el(
    "ApplicationResponse",
    {},
    "\n",
    el("ext:UBLExtensions", {}, el("ext:UBLExtension", {}, signatureSlot)),
    "\n",
    el("cbc:ID", {}, "1608753"),
    "\n",
    el("cbc:IssueDate", {}, "2026-11-20"),
    "\n",
    el("cbc:IssueTime", {}, "10:31:07-05:00"),
    "\n",
    el(
      "cac:DocumentResponse",
      {},
      "\n",
      el(
        "cac:Response",
        {},
        el("cbc:ResponseCode", {}, code),
        el("cbc:Description", { languageID: note }, "x"),
      ),
      "\n",
      el("cac:DocumentReference", {}, el("cbc:ID", {}, "SETP1"), el("cbc:UUID", {}, documentKey)),
      "\n",
    ),
    "\n",
  );
  return signDocument({ root, namespaces, signatureSlot }, dian, {
    id: "dian-response",
    signingTime: "2026-11-20T10:31:07.000-05:00",
  });
}
