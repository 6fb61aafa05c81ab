/**
 * The DIAN TaxAdapter end to end against the DIAN stand-in (an independent checker, at the network
 * edge): our client signs and sends, the stand-in verifies what DIAN verifies and answers in DIAN's
 * shapes, and the adapter turns the answers into the port's outcomes — accepted with the CUFE,
 * rejected with DIAN's rules, a duplicate accepted, a test set batch pending then settled, a
 * document DIAN never received as null. The AttachedDocument: ./adapter-attached-document.test.ts.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { dianCreditNote, signedAtIssue, TEST_SOFTWARE } from "../../devkit/dian/documents.ts";
import { type DianStandIn, generatedDianCertificate } from "../../sandbox/dian/index.ts";
import { ProviderTimeoutError } from "../../shared/ports/providers/errors.ts";
import type { SubmitDocumentRequest } from "../../shared/ports/providers/protocol.ts";
import { createDianAdapter } from "../../shared/providers/dian/adapter.ts";
import { openPkcs12, type Signer } from "../../shared/providers/dian/certificate.ts";
import { createDianService } from "../../shared/providers/dian/service.ts";
import { type AdapterBench, adapterBench, invoice, lookupOf } from "../support/dian-adapter.ts";
import { createTestCertificates, SERVICE_URL, seededStandIn, TEST_SET_ID } from "../support/dian-stand-in.ts";

let bench: AdapterBench;
let standIn: DianStandIn;
let signer: Signer;
let adapter: AdapterBench["adapter"];

beforeAll(async () => {
  bench = await adapterBench();
  ({ standIn, signer } = bench);
  adapter = bench.adapter;
}, 120_000);

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

  it("signs at its clock's instant, never at the issue time: a document dated days earlier fails FAD09e", async () => {
    const before = bench.clock.now();
    try {
      // the fixture is dated 2026-11-20 10:30:00-05:00; signed on the 28th, DIAN refuses it
      bench.clock.set("2026-11-28T15:00:00Z");
      const late = await adapter().submit(invoice());
      expect(late.status).toBe("rejected");
      expect(late.errors?.map((e) => e.code)).toEqual(["FAD09e"]);
      // signed at 23:30:12 in Bogotá on its issue date (04:30:12 UTC the next day): accepted, signed then
      bench.clock.set("2026-11-21T04:30:12Z");
      const onTime = await adapter().submit(invoice());
      expect(onTime.status).toBe("accepted");
      const kept = standIn.documents.find((d) => d.key === onTime.authority_code)?.copy?.xmlBase64 ?? "";
      const xml = Buffer.from(kept, "base64").toString("utf8");
      expect(/<xades:SigningTime>([^<]*)</.exec(xml)?.[1]).toBe("2026-11-20T23:30:12.000-05:00");
      expect(/<cbc:IssueTime>([^<]*)</.exec(xml)?.[1]).toBe("10:30:00-05:00");
    } finally {
      bench.clock.set(before);
    }
  });

  it("sends a credit note with its CUDE", async () => {
    const tax = adapter();
    const original = invoice();
    const { authority_code } = await tax.submit(original);
    const note = dianCreditNote(
      { document: original, dian: { software: TEST_SOFTWARE } },
      authority_code as string,
    );
    // signed on the note's own issue date, a day after the invoice's
    const before = bench.clock.now();
    bench.clock.set(signedAtIssue(note).signingTime);
    try {
      const outcome = await tax.submit(note.document);
      expect(outcome.status).toBe("accepted");
      expect(outcome.authority_code).not.toBe(authority_code);
    } finally {
      bench.clock.set(before);
    }
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
      standIn.setKnobs({ hangMs: 3_000, failNext: [{ kind, operation: "GetStatusZip", count: 2 }] });
      try {
        // DIAN has the batch: whatever its polls answer, the outcome is pending under the ZipKey
        const outcome = await adapter({ testSetId: TEST_SET_ID, timeoutMs: 1_000 }).submit(request);
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
        now: () => bench.clock.now(),
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
