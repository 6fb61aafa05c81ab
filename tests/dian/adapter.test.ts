/**
 * The DIAN TaxAdapter end to end against the DIAN stand-in (an independent checker, at the network
 * edge): our client signs and sends, the stand-in verifies what DIAN verifies and answers in DIAN's
 * shapes, and the adapter turns the answers into the port's outcomes — accepted with the CUFE,
 * rejected with DIAN's rules, a duplicate accepted, a test set batch pending then settled, a
 * document DIAN never received as null, and the buyer's AttachedDocument built and signed by us
 * around DIAN's own copy of the document (GetXmlByDocumentKey), the same bytes after the company's
 * technical key, certificate or software PIN changed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { dianCreditNote, dianInvoice, TEST_RESOLUTION, TEST_SOFTWARE } from "../../devkit/dian/documents.ts";
import { embeddedDocuments, xmlsecVerify } from "../../devkit/dian/xml-tools.ts";
import { type DianStandIn, generatedDianCertificate } from "../../sandbox/dian/index.ts";
import { openPkcs12, type Signer } from "../../shared/fiscal/co/dian/certificate.ts";
import { createDianService } from "../../shared/fiscal/co/dian/service.ts";
import { fromBase64 } from "../../shared/providers/deliver.ts";
import { createDianAdapter } from "../../shared/providers/dian-adapter.ts";
import { ProviderMalformedError, ProviderTimeoutError } from "../../shared/providers/errors.ts";
import type { DocumentLookup, SubmitDocumentRequest, TaxAdapter } from "../../shared/providers/protocol.ts";
import { createTestCertificates, SERVICE_URL, seededStandIn, TEST_SET_ID } from "../support/dian-stand-in.ts";
import { answer } from "./fixtures.ts";

let standIn: DianStandIn;
let signer: Signer;
let caPem: string;
let dianCaPem: string;

beforeAll(async () => {
  const certs = createTestCertificates();
  signer = await openPkcs12(certs.p12, certs.password);
  caPem = certs.caPem;
  standIn = seededStandIn(certs);
  dianCaPem = await standIn.dianCaPem();
}, 120_000);

function adapter(
  options: { testSetId?: string; timeoutMs?: number; signer?: Signer; pin?: string } = {},
): TaxAdapter {
  const service = createDianService({
    url: SERVICE_URL,
    signer: options.signer ?? signer,
    fetch: standIn.fetch,
    timeoutMs: options.timeoutMs ?? 10_000,
  });
  return createDianAdapter({
    service,
    signer: options.signer ?? signer,
    software: { id: TEST_SOFTWARE.id, pin: options.pin ?? TEST_SOFTWARE.pin },
    testSetId: options.testSetId ?? null,
    batchPollMs: 0,
  });
}

/** An invoice as the lifecycle prepares it: the protocol's request with its numbering resolution. */
function invoice(change?: (doc: SubmitDocumentRequest) => void): SubmitDocumentRequest {
  const { document } = dianInvoice(3, change);
  return {
    ...document,
    numbering: {
      resolution_number: TEST_RESOLUTION.number,
      start_date: TEST_RESOLUTION.start_date,
      end_date: TEST_RESOLUTION.end_date,
      prefix: TEST_RESOLUTION.prefix,
      from: TEST_RESOLUTION.from,
      to: TEST_RESOLUTION.to,
    },
  };
}

const lookupOf =
  (request: SubmitDocumentRequest, providerReference: string | null = null): DocumentLookup =>
  async () => ({ request, providerReference });

describe("the DIAN adapter against the stand-in", () => {
  it("sends an invoice (SendBillSync): accepted with its CUFE, and asked again, the same", async () => {
    const tax = adapter();
    const request = invoice();
    const outcome = await tax.submit(request);
    expect(outcome).toMatchObject({ reference: request.reference, status: "accepted" });
    expect(outcome.authority_code).toMatch(/^[0-9a-f]{96}$/);
    expect(outcome.qr_text).toContain(outcome.authority_code);
    expect(outcome.message).toMatch(/^Procesado Correctamente\./);
    const again = await tax.query(request.reference, lookupOf(request));
    expect(again).toMatchObject({ status: "accepted", authority_code: outcome.authority_code });
  });

  it("asks about a document by the CUFE DIAN answered, not one recomputed with today's technical key", async () => {
    const tax = adapter();
    const request = invoice();
    const sent = await tax.submit(request);
    expect(sent.provider_reference).toBe(sent.authority_code);
    // a new numbering resolution brings a new technical key; the document keeps the code it was sent with
    const renewed = { ...request, issuer: { ...request.issuer, technical_key: "1".repeat(40) } };
    expect(await tax.query(request.reference, lookupOf(renewed, sent.provider_reference))).toMatchObject({
      status: "accepted",
      authority_code: sent.authority_code,
      qr_text: sent.qr_text,
    });
  });

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
    const sent = await tax.submit(note.document);
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

  it("answers a document DIAN never received with null, and refuses its AttachedDocument", async () => {
    const tax = adapter();
    const request = invoice();
    expect(await tax.query(request.reference, lookupOf(request))).toBeNull();
    await expect(
      tax.attachedDocument(request.reference, {
        authorityCode: "a".repeat(96),
        lookup: lookupOf(request),
      }),
    ).rejects.toMatchObject({ providerCode: "document_not_found", maybeProcessed: false });
  });

  it("reports DIAN's rejection with each rule: a CUFE made with another technical key (FAD06)", async () => {
    const request = invoice((doc) => {
      doc.issuer.technical_key = "0".repeat(40);
    });
    const outcome = await adapter().submit(request);
    expect(outcome.status).toBe("rejected");
    expect(outcome.errors).toContainEqual(expect.objectContaining({ code: "FAD06", kind: "rechazo" }));
    expect(outcome.authority_code).toBeUndefined();
  });

  it("takes a resend after an unknown outcome as the earlier acceptance (rule 90), never twice", async () => {
    const tax = adapter({ timeoutMs: 500 });
    const request = invoice();
    standIn.setKnobs({ hangMs: 2_000, failNext: [{ kind: "hang", operation: "SendBillSync" }] });
    const lost = await tax.submit(request).catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(ProviderTimeoutError);
    expect((lost as ProviderTimeoutError).maybeProcessed).toBe(true);
    // the lifecycle asks first: DIAN has it
    const known = await tax.query(request.reference, lookupOf(request));
    expect(known?.status).toBe("accepted");
    // and a resend under the same key is answered by rule 90 as that very acceptance
    const resent = await tax.submit(request);
    expect(resent).toMatchObject({ status: "accepted", authority_code: known?.authority_code });
    // DIAN's words on a rule 90 answer are those of a rejection ("Validación contiene errores…"):
    // an acceptance says what happened instead
    expect(resent.message).toMatch(/already accepted/);
    expect(resent.message).not.toMatch(/errores/);
  });

  it("sends a credit note with its CUDE", async () => {
    const tax = adapter();
    const original = invoice();
    const { authority_code } = await tax.submit(original);
    const note = dianCreditNote(
      { document: original, dian: { software: TEST_SOFTWARE } },
      authority_code as string,
    );
    const outcome = await tax.submit(note.document);
    expect(outcome.status).toBe("accepted");
    expect(outcome.authority_code).not.toBe(authority_code);
  });

  it("habilitación: a test set batch left pending under its ZipKey, then settled by a query", async () => {
    const tax = adapter({ testSetId: TEST_SET_ID });
    const request = invoice();
    standIn.setKnobs({ holdBatches: true });
    try {
      const pending = await tax.submit(request);
      expect(pending.status).toBe("pending");
      expect(pending.provider_reference).toMatch(/^[0-9a-f-]{36}$/i);
      const still = await tax.query(request.reference, lookupOf(request, pending.provider_reference));
      expect(still?.status).toBe("pending");
      standIn.releaseBatches();
      standIn.setKnobs({ holdBatches: false });
      const settled = await tax.query(request.reference, lookupOf(request, pending.provider_reference));
      expect(settled?.status).toBe("accepted");
    } finally {
      standIn.setKnobs({ holdBatches: false });
    }
  });

  it("habilitación: a poll that fails after DIAN took the batch leaves it pending, never 'not sent'", async () => {
    const tax = adapter({ testSetId: TEST_SET_ID });
    for (const kind of ["error", "garbage", "hang"] as const) {
      const request = invoice();
      standIn.setKnobs({ hangMs: 1_000, failNext: [{ kind, operation: "GetStatusZip", count: 2 }] });
      try {
        // DIAN has the batch: whatever its polls answer, the outcome is pending under the ZipKey
        const outcome = await adapter({ testSetId: TEST_SET_ID, timeoutMs: 300 }).submit(request);
        expect(outcome.status).toBe("pending");
        expect(outcome.provider_reference).toMatch(/^[0-9a-f-]{36}$/i);
        standIn.setKnobs({ failNext: [] });
        const settled = await tax.query(request.reference, lookupOf(request, outcome.provider_reference));
        expect(settled?.status).toBe("accepted");
      } finally {
        standIn.setKnobs({ failNext: [] });
      }
    }
  });

  it("habilitación: a resend in a test set batch is the earlier acceptance; another document of the same number is rejected", async () => {
    const tax = adapter({ testSetId: TEST_SET_ID });
    const request = invoice();
    expect(await adapter().submit(request)).toMatchObject({ status: "accepted" });
    const settle = async (doc: SubmitDocumentRequest) => {
      const sent = await tax.submit(doc);
      return sent.status === "pending"
        ? await tax.query(doc.reference, lookupOf(doc, sent.provider_reference))
        : sent;
    };
    expect(await settle(request)).toMatchObject({ status: "accepted" });
    const reused = await settle({ ...request, reference: crypto.randomUUID(), issue_time: "11:45:00-05:00" });
    expect(reused?.status).toBe("rejected");
    expect(reused?.errors).toEqual([
      { code: "90", kind: "rechazo", message: "Documento procesado anteriormente." },
    ]);
  });

  it("refuses before sending an invoice without its numbering resolution", () => {
    const { numbering: _, ...request } = invoice();
    expect(adapter().precheck?.(request)).toMatch(/numbering resolution/);
  });

  it("checks the software with GetNumberingRange", async () => {
    expect(await adapter().checkCredential()).toMatchObject({ ok: true });
    const unknown = createDianAdapter({
      service: createDianService({ url: SERVICE_URL, signer, fetch: standIn.fetch, timeoutMs: 10_000 }),
      signer,
      software: { id: "00000000-0000-4000-8000-000000000000", pin: "1" },
      testSetId: null,
    });
    expect(await unknown.checkCredential()).toMatchObject({ ok: false });
  });

  it("a stand-in restarted on the same store file still knows what it accepted, as DIAN would", async () => {
    const dir = mkdtempSync(join(tmpdir(), "einv-dian-store-"));
    const certs = createTestCertificates();
    const own = await openPkcs12(certs.p12, certs.password);
    const dianCertificate = await generatedDianCertificate();
    const start = () => seededStandIn(certs, { storeFile: join(dir, "documents.jsonl"), dianCertificate });
    const over = (stand: DianStandIn) =>
      createDianAdapter({
        service: createDianService({ url: SERVICE_URL, signer: own, fetch: stand.fetch, timeoutMs: 10_000 }),
        signer: own,
        software: { id: TEST_SOFTWARE.id, pin: TEST_SOFTWARE.pin },
        testSetId: null,
      });
    try {
      const request = invoice();
      const accepted = await over(start()).submit(request);
      expect(accepted.status).toBe("accepted");
      const again = over(start());
      expect(await again.query(request.reference, lookupOf(request))).toMatchObject({
        status: "accepted",
        authority_code: accepted.authority_code,
      });
      expect(await again.submit(request)).toMatchObject({ status: "accepted" }); // rule 90, as before
      // and still hands over its copy of the document for the AttachedDocument
      const code = accepted.authority_code as string;
      const bytes = await over(start()).attachedDocument(request.reference, {
        authorityCode: code,
        lookup: lookupOf(request, code),
      });
      expect(new TextDecoder().decode(bytes)).toContain(code);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
