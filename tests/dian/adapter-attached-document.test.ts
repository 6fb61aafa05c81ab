import { beforeAll, describe, expect, it } from "vitest";
import { dianCreditNote, signedAtIssue, TEST_SOFTWARE } from "../../devkit/dian/documents.ts";
import { embeddedDocuments, xmlsecVerify } from "../../devkit/dian/xml-tools.ts";
import type { DianStandIn } from "../../sandbox/dian/index.ts";
import { fromBase64 } from "../../shared/ports/providers/deliver.ts";
import { ProviderMalformedError } from "../../shared/ports/providers/errors.ts";
import { openPkcs12 } from "../../shared/providers/dian/certificate.ts";
import { type AdapterBench, adapterBench, invoice, lookupOf } from "../support/dian-adapter.ts";
import { createTestCertificates } from "../support/dian-stand-in.ts";
import { answer } from "./fixtures.ts";

let bench: AdapterBench;
let standIn: DianStandIn;
let caPem: string;
let dianCaPem: string;
let adapter: AdapterBench["adapter"];

beforeAll(async () => {
  bench = await adapterBench();
  ({ standIn, caPem, dianCaPem } = bench);
  adapter = bench.adapter;
}, 120_000);

describe("the AttachedDocument of the DIAN adapter", () => {
  it("builds the buyer's AttachedDocument: ours, signed, holding DIAN's signed ApplicationResponse", async () => {
    const tax = adapter();
    const request = invoice();
    const { authority_code } = await tax.submit(request);
    const bytes = await tax.attachedDocument(request.reference, {
      authorityCode: authority_code as string,
      lookup: lookupOf(request),
    });
    const text = new TextDecoder().decode(bytes);
    expect(text).toContain("<AttachedDocument");
    expect(text).toContain(authority_code);
    expect((await xmlsecVerify(bytes, caPem)).output).toContain("OK");
    const sections = [...text.matchAll(/<!\[CDATA\[([\s\S]*?)\]\]>/g)].map((m) => m[1] ?? "");
    const response = sections.find((s) => s.includes("<ApplicationResponse"));
    expect(response).toBeDefined();
    expect((await xmlsecVerify(new TextEncoder().encode(response), dianCaPem)).output).toContain("OK");
  });

  /**
   * The AttachedDocument embeds exactly the XML the stand-in received for `code` (read back from the
   * CDATA section as a parser reads it), whose signature verifies against `documentCa`; the
   * container itself is signed by the company's current certificate (`containerCa`).
   */
  async function embedsWhatDianReceived(
    bytes: Uint8Array,
    code: string,
    documentCa: string,
    containerCa = caPem,
  ) {
    const { document } = await embeddedDocuments(bytes);
    const received = standIn.documents.find((d) => d.key === code)?.copy?.xmlBase64;
    expect(received, "the stand-in kept the XML it accepted").toBeDefined();
    expect(Buffer.from(document).equals(Buffer.from(fromBase64(received ?? "")))).toBe(true);
    expect((await xmlsecVerify(document, documentCa)).ok).toBe(true);
    expect((await xmlsecVerify(bytes, containerCa)).ok).toBe(true);
  }

  it("an invoice accepted before a new technical key: its AttachedDocument embeds the bytes DIAN received", async () => {
    const tax = adapter();
    const request = invoice();
    const { authority_code } = await tax.submit(request);
    const code = authority_code as string;
    // a new numbering resolution: rebuilt with this key, the document would carry another CUFE
    const renewed = { ...request, issuer: { ...request.issuer, technical_key: "1".repeat(40) } };
    const bytes = await tax.attachedDocument(request.reference, {
      authorityCode: code,
      lookup: lookupOf(renewed, code),
    });
    await embedsWhatDianReceived(bytes, code, caPem);
  });

  it("an invoice accepted before a new certificate: its AttachedDocument embeds the document as signed then", async () => {
    const request = invoice();
    const { authority_code } = await adapter().submit(request);
    const code = authority_code as string;
    const renewedCerts = createTestCertificates(); // the same NIT, another key and CA
    standIn.trustCa(renewedCerts.caPem);
    const renewed = adapter({ signer: await openPkcs12(renewedCerts.p12, renewedCerts.password) });
    const bytes = await renewed.attachedDocument(request.reference, {
      authorityCode: code,
      lookup: lookupOf(request, code),
    });
    await embedsWhatDianReceived(bytes, code, caPem, renewedCerts.caPem);
    const { document } = await embeddedDocuments(bytes);
    expect((await xmlsecVerify(document, renewedCerts.caPem)).ok).toBe(false); // not re-signed
  }, 60_000);

  it("a credit note accepted before a new software PIN: its AttachedDocument embeds the bytes DIAN received", async () => {
    const tax = adapter();
    const original = invoice();
    const { authority_code: cufe } = await tax.submit(original);
    const note = dianCreditNote({ document: original, dian: { software: TEST_SOFTWARE } }, cufe as string);
    // signed on the note's own issue date, a day after the invoice's
    const before = bench.clock.now();
    bench.clock.set(signedAtIssue(note).signingTime);
    const sent = await tax.submit(note.document).finally(() => bench.clock.set(before));
    expect(sent.status).toBe("accepted");
    const cude = sent.authority_code as string;
    // the CUDE is made with the PIN: rebuilt with another, the note would carry another CUDE
    const bytes = await adapter({ pin: "otro-pin-77" }).attachedDocument(note.document.reference, {
      authorityCode: cude,
      lookup: lookupOf(note.document, cude),
    });
    expect(new TextDecoder().decode(bytes)).toContain('schemeName="CUDE-SHA384"');
    await embedsWhatDianReceived(bytes, cude, caPem);
  });

  it("refuses the AttachedDocument when DIAN has no copy (404), or its copy is not the document asked about", async () => {
    const tax = adapter();
    const request = invoice();
    const code = (await tax.submit(request)).authority_code as string;
    const expected = { authorityCode: code, lookup: lookupOf(request, code) };
    standIn.setNextResponse(
      "GetXmlByDocumentKey",
      answer("get-xml-by-document-key-refused.xml", { CODE: "404", MESSAGE: "no encontrado." }),
    );
    await expect(tax.attachedDocument(request.reference, expected)).rejects.toMatchObject({
      providerCode: "document_not_found",
      status: 404,
      maybeProcessed: false,
    });
    standIn.setNextResponse("GetXmlByDocumentKey", answer("get-xml-by-document-key.xml"));
    const other = await tax.attachedDocument(request.reference, expected).catch((error: unknown) => error);
    expect(other).toBeInstanceOf(ProviderMalformedError);
    expect((other as Error).message).toMatch(/not a signed Invoice as the DIAN builder writes it/);
  });
});
