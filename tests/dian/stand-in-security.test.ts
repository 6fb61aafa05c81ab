/**
 * What the stand-in refuses before any operation runs, as DIAN's WCF service would: a client
 * certificate out of its dates or from an untrusted CA (a SOAP Fault `s:Client` with DIAN's words), a
 * WS-Security signature that does not verify or an expired Timestamp (a Fault), an over-size message
 * (413, refused before it is read); and a ZIP bomb, answered 89 without inflating it.
 */
import { deflateSync, zipSync } from "fflate";
import { beforeAll, describe, expect, it } from "vitest";
import { dianInvoice, signedAtIssue } from "../../devkit/dian/documents.ts";
import { type DianStandIn, MAX_MESSAGE_BYTES } from "../../sandbox/dian/index.ts";
import { toBase64 } from "../../shared/ports/providers/deliver.ts";
import { openPkcs12 } from "../../shared/providers/dian/certificate.ts";
import { buildSignedDocument } from "../../shared/providers/dian/document.ts";
import {
  createTestCertificates,
  field,
  post,
  SERVICE_URL,
  type Sender,
  seededStandIn,
  senderOf,
  soapRequest,
  TEST_SET_ID,
  zipBase64,
} from "../support/dian-stand-in.ts";

let sender: Sender;
let expired: Sender;
let stranger: Sender;
let standIn: DianStandIn;
let invoiceZip: string;

beforeAll(async () => {
  const certs = createTestCertificates();
  sender = senderOf(certs);
  const day = 86_400_000;
  const old = createTestCertificates({
    notBefore: new Date(Date.now() - 400 * day),
    notAfter: new Date(Date.now() - day),
  });
  expired = senderOf(old);
  stranger = senderOf(createTestCertificates());
  standIn = seededStandIn(certs);
  standIn.trustCa(old.caPem);
  const signer = await openPkcs12(certs.p12, certs.password);
  const oneLine = dianInvoice(1);
  invoiceZip = zipBase64({
    "invoice.xml": (await buildSignedDocument(oneLine, signer, signedAtIssue(oneLine))).xml,
  });
}, 120_000);

const sendBill = (from: Sender, options = {}) =>
  soapRequest(from, "SendBillSync", { fileName: "invoice.zip", contentFile: invoiceZip }, options);

async function fault(envelope: string) {
  const response = await post(standIn, envelope, "SendBillSync");
  const text = await response.text();
  return { status: response.status, value: field(text, "Value"), reason: field(text, "Text"), text };
}

describe("the client certificate", () => {
  it("refuses an expired one with DIAN's Fault", async () => {
    const answer = await fault(await sendBill(expired));
    expect(answer.status).toBe(500);
    expect(answer.value).toBe("s:Client");
    expect(answer.reason).toBe("Certificado se encuentra expirado.");
    expect(standIn.documents).toHaveLength(0);
  });

  it("refuses one from a CA it does not trust", async () => {
    const answer = await fault(await sendBill(stranger));
    expect(answer.value).toBe("s:Client");
    expect(answer.reason).toMatch(/^Certificado no es de confianza/);
  });

  it("answers 89 when the certificate's NIT may not send for the document's issuer", async () => {
    const other = senderOf(createTestCertificates({ nit: "900999999" }));
    standIn.trustCa(other.certs.caPem);
    const text = await (await post(standIn, await sendBill(other), "SendBillSync")).text();
    expect(field(text, "StatusCode")).toBe("89");
    expect(field(text, "StatusDescription")).toBe(
      "NIT 900999999 no autorizado a enviar documentos para emisor con NIT 900123456.",
    );
  });
});

describe("the WS-Security header", () => {
  it("refuses a message whose signed wsa:To was changed", async () => {
    const envelope = await sendBill(sender, {
      tamper: (xml: string) => xml.replace("https://vpfe-hab.dian.gov.co/", "https://vpfe.dian.gov.co/"),
    });
    const answer = await fault(envelope);
    expect(answer.status).toBe(500);
    expect(answer.text).toContain("a:InvalidSecurity");
    expect(answer.reason).toBe("An error occurred when verifying security for the message.");
  });

  it("refuses a trusted token that is not the signer's certificate", async () => {
    const other = senderOf(createTestCertificates());
    standIn.trustCa(other.certs.caPem);
    const answer = await fault(await sendBill(sender, { tokenBase64: other.certificateBase64 }));
    expect(answer.status).toBe(500);
    expect(answer.text).toContain("a:InvalidSecurity");
  });

  it("refuses an expired Timestamp, and accepts one within five minutes of clock skew", async () => {
    const past = new Date(Date.now() - 3_600_000);
    const stale = await fault(
      await sendBill(sender, { created: past, expires: new Date(past.getTime() + 600_000) }),
    );
    expect(stale.text).toContain("a:InvalidSecurity");
    const skewed = new Date(Date.now() + 120_000);
    const fine = await post(standIn, await sendBill(sender, { created: skewed }), "SendBillSync");
    expect(fine.status).toBe(200);
  });
});

describe("bounds", () => {
  it("refuses a message over 10 485 760 bytes with 413, before reading it", async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(1 << 20));
        if (pulled > 64) controller.close();
      },
    });
    const declared = await standIn.fetch(SERVICE_URL, {
      method: "POST",
      headers: { "content-type": "application/soap+xml", "content-length": String(MAX_MESSAGE_BYTES + 1) },
      body: "x",
    });
    expect(declared.status).toBe(413);
    const streamed = await standIn.fetch(SERVICE_URL, {
      method: "POST",
      headers: { "content-type": "application/soap+xml" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(pulled).toBeLessThan(16);
  });

  it("answers 89 to a ZIP bomb without inflating it all", async () => {
    // 200 MiB of zeros deflate to ~200 KiB: far past the 10 MiB an XML may inflate to
    const zeros = new Uint8Array(200 * 1024 * 1024);
    const bomb = zipSync({ "invoice.xml": [zeros, { level: 1 }] });
    expect(bomb.length).toBeLessThan(1_000_000);
    const envelope = await soapRequest(sender, "SendBillSync", {
      fileName: "bomb.zip",
      contentFile: toBase64(bomb),
    });
    const started = performance.now();
    const text = await (await post(standIn, envelope, "SendBillSync")).text();
    const elapsed = performance.now() - started;
    expect(field(text, "StatusCode")).toBe("89");
    expect(field(text, "StatusDescription")).toContain("inflates past 10485760 bytes");
    expect(elapsed).toBeLessThan(2_000);
  });

  it("answers 89 to a ZIP of many XMLs each just under the limit, without inflating them all", async () => {
    // 50 XMLs of 10 MB of zeros (~10 KiB each deflated): each alone within the limit, together 500 MB
    const zeros = new Uint8Array(10_000_000);
    const files = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}.xml`, zeros]));
    const envelope = await soapRequest(sender, "SendTestSetAsync", {
      fileName: "many.zip",
      contentFile: toBase64(zipSync(files, { level: 1 })),
      testSetId: TEST_SET_ID,
    });
    const started = performance.now();
    const text = await (await post(standIn, envelope, "SendTestSetAsync")).text();
    const elapsed = performance.now() - started;
    expect(field(text, "ZipKey")).toBeUndefined();
    expect(field(text, "ProcessedMessage")).toContain("inflate past 10485760 bytes together");
    expect(elapsed).toBeLessThan(2_000);
  });

  it("answers 89 to a ZIP of too many entries, without reading them", async () => {
    const files = Object.fromEntries(
      Array.from({ length: 500 }, (_, i) => [`f${i}.txt`, deflateSync(new Uint8Array(1))]),
    );
    const envelope = await soapRequest(sender, "SendBillSync", {
      fileName: "many.zip",
      contentFile: toBase64(zipSync(files)),
    });
    const text = await (await post(standIn, envelope, "SendBillSync")).text();
    expect(field(text, "StatusCode")).toBe("89");
    expect(field(text, "StatusDescription")).toContain("500 entries");
  });
});
