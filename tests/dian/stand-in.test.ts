/**
 * The DIAN stand-in accepts what DIAN accepts and answers in DIAN's shapes: a signed invoice and
 * credit note sent by SendBillSync come back 00 with an ApplicationResponse that xmlsec1 verifies
 * against the stand-in's "DIAN" CA; the envelopes are built and signed without our client.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { dianCreditNote, dianInvoice, signedAtIssue } from "../../devkit/dian/documents.ts";
import { xmlsecVerify } from "../../devkit/dian/xml-tools.ts";
import type { DianStandIn } from "../../sandbox/dian/index.ts";
import { openPkcs12, type Signer } from "../../shared/providers/dian/certificate.ts";
import { buildSignedDocument } from "../../shared/providers/dian/document.ts";
import {
  createTestCertificates,
  errorMessages,
  field,
  post,
  type Sender,
  seededStandIn,
  senderOf,
  soapRequest,
  zipBase64,
} from "../support/dian-stand-in.ts";

let sender: Sender;
let signer: Signer;
let standIn: DianStandIn;
let dianCa: string;

beforeAll(async () => {
  const certs = createTestCertificates();
  sender = senderOf(certs);
  signer = await openPkcs12(certs.p12, certs.password);
  standIn = seededStandIn(certs);
  dianCa = await standIn.dianCaPem();
}, 120_000);

async function sendBill(xml: Uint8Array, name = "invoice.xml") {
  const envelope = await soapRequest(sender, "SendBillSync", {
    fileName: "invoice.zip",
    contentFile: zipBase64({ [name]: xml }),
  });
  const response = await post(standIn, envelope, "SendBillSync");
  return { status: response.status, text: await response.text() };
}

const applicationResponseOf = (text: string) => Buffer.from(field(text, "XmlBase64Bytes") ?? "", "base64");

describe("SendBillSync of a good document", () => {
  it("accepts an invoice: 00, IsValid, its CUFE as the key, and a signed ApplicationResponse 02", async () => {
    const fourLines = dianInvoice(4);
    const { xml, authorityCode } = await buildSignedDocument(fourLines, signer, signedAtIssue(fourLines));
    const { status, text } = await sendBill(xml);
    expect(status).toBe(200);
    expect(errorMessages(text)).toEqual([]);
    expect(field(text, "StatusCode")).toBe("00");
    expect(field(text, "IsValid")).toBe("true");
    expect(field(text, "StatusDescription")).toBe("Procesado Correctamente.");
    expect(field(text, "XmlDocumentKey")).toBe(authorityCode);
    expect(field(text, "XmlFileName")).toBe("invoice");
    expect(text).toContain(
      '<SendBillSyncResult xmlns:b="http://schemas.datacontract.org/2004/07/DianResponse"',
    );
    const ar = applicationResponseOf(text);
    expect(field(ar.toString(), "ResponseCode")).toBe("02");
    expect(ar.toString()).toContain(`<cbc:UUID schemeName="CUFE-SHA384">${authorityCode}</cbc:UUID>`);
    const verified = await xmlsecVerify(new Uint8Array(ar), dianCa);
    expect(verified.output).toContain("SignedInfo References (ok/all): 3/3");
    expect(verified.ok).toBe(true);
  }, 60_000);

  it("accepts a credit note of it: 00, its CUDE as the key", async () => {
    const invoice = dianInvoice(3);
    const built = await buildSignedDocument(invoice, signer, signedAtIssue(invoice));
    expect(field((await sendBill(built.xml)).text, "StatusCode")).toBe("00");
    const partial = dianCreditNote(invoice, built.authorityCode, true);
    const note = await buildSignedDocument(partial, signer, signedAtIssue(partial));
    const { text } = await sendBill(note.xml, "nc.xml");
    expect(errorMessages(text)).toEqual([]);
    expect(field(text, "StatusCode")).toBe("00");
    expect(field(text, "XmlDocumentKey")).toBe(note.authorityCode);
    expect((await xmlsecVerify(new Uint8Array(applicationResponseOf(text)), dianCa)).ok).toBe(true);
  }, 60_000);
});
