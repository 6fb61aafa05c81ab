/**
 * The stand-in's test-set tally, as DIAN's validator keeps it (brief-business §2, [D]
 * UpdateTestSetResult.cs): accepted when accepted invoices, credit notes and debit notes each reach
 * their minimum; rejected when rejected documents exceed total required − accepted required; types
 * 01/02/03 invoices, 91 credit, 92 debit. Once closed, GetStatusZip of a later batch answers the
 * set's status (StatusCode 2, "Set de prueba con identificador … se encuentra Aceptado."), as DIAN
 * does ([F] GetStatusZip_habilitation.xml), and our client reads that answer as such.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { dianCreditNote, dianInvoice, signedAtIssue } from "../../devkit/dian/documents.ts";
import type { DianStandIn } from "../../sandbox/dian/index.ts";
import {
  kindOfType,
  newTally,
  OBSERVED_TEST_SET,
  type TestSetRequirement,
  tallyDocument,
  tallyStatus,
} from "../../sandbox/dian/test-sets.ts";
import { testSetStatusOf } from "../../shared/co/test-set.ts";
import { readAnswer } from "../../shared/providers/dian/answers.ts";
import { openPkcs12, type Signer } from "../../shared/providers/dian/certificate.ts";
import { buildSignedDocument } from "../../shared/providers/dian/document.ts";
import { batchOutcome } from "../../shared/providers/dian/outcome.ts";
import {
  createTestCertificates,
  field,
  post,
  type Sender,
  seededStandIn,
  senderOf,
  soapRequest,
  TEST_SET_ID,
  zipBase64,
} from "../support/dian-stand-in.ts";

const SMALL: TestSetRequirement = {
  documents: 4,
  invoices: 2,
  creditNotes: 1,
  debitNotes: 1,
  acceptedDocuments: 3,
  acceptedInvoices: 2,
  acceptedCreditNotes: 1,
  acceptedDebitNotes: 0,
};

let n = 0;
const key = () => `key-${++n}`;

describe("the tally (pure)", () => {
  it("counts 01/02/03 as invoices, 91 as credit notes, 92 as debit notes, anything else apart", () => {
    expect(["01", "02", "03", "91", "92", "05", undefined].map(kindOfType)).toEqual([
      "invoices",
      "invoices",
      "invoices",
      "creditNotes",
      "debitNotes",
      "other",
      "other",
    ]);
  });

  it("is accepted once every kind reaches its accepted minimum, not before", () => {
    const tally = newTally("s");
    tallyDocument(tally, SMALL, { typeCode: "01", key: key(), accepted: true });
    tallyDocument(tally, SMALL, { typeCode: "91", key: key(), accepted: true });
    expect(tally.status).toBe("en_proceso"); // one invoice short
    tallyDocument(tally, SMALL, { typeCode: "01", key: key(), accepted: true });
    expect(tally.status).toBe("aceptado");
    expect(tally.invoices).toEqual({ sent: 2, accepted: 2, rejected: 0 });
    // closed: nothing more is counted
    tallyDocument(tally, SMALL, { typeCode: "92", key: key(), accepted: false });
    expect(tally.debitNotes.sent).toBe(0);
  });

  it("is rejected once rejections exceed total required − accepted required (4 − 3 = 1: the second)", () => {
    const tally = newTally("s");
    tallyDocument(tally, SMALL, { typeCode: "92", key: key(), accepted: false });
    expect(tally.status).toBe("en_proceso");
    tallyDocument(tally, SMALL, { typeCode: "01", key: key(), accepted: false });
    expect(tally.status).toBe("rechazado");
  });

  it("the observed set (30+10+10, minimum 1 invoice) is accepted by one accepted invoice, and absorbs 49 rejections", () => {
    const accepted = newTally("s");
    tallyDocument(accepted, OBSERVED_TEST_SET, { typeCode: "01", key: key(), accepted: true });
    expect(accepted.status).toBe("aceptado");
    const rejected = newTally("s");
    for (let i = 0; i < 49; i++)
      tallyDocument(rejected, OBSERVED_TEST_SET, { typeCode: "91", key: key(), accepted: false });
    expect(rejected.status).toBe("en_proceso");
    tallyDocument(rejected, OBSERVED_TEST_SET, { typeCode: "92", key: key(), accepted: false });
    expect(rejected.status).toBe("rechazado");
  });

  it("counts a document sent again once; a set without numbers never closes", () => {
    const tally = newTally("s");
    const same = key();
    tallyDocument(tally, null, { typeCode: "01", key: same, accepted: true });
    tallyDocument(tally, null, { typeCode: "01", key: same, accepted: true });
    expect(tally.invoices.sent).toBe(1);
    expect(tally.status).toBe("en_proceso");
    expect(tallyStatus(tally, null)).toBe("en_proceso");
  });
});

describe("a test set through the stand-in's SOAP operations", () => {
  let sender: Sender;
  let signer: Signer;
  let standIn: DianStandIn;

  beforeAll(async () => {
    const certs = createTestCertificates();
    sender = senderOf(certs);
    signer = await openPkcs12(certs.p12, certs.password);
    standIn = seededStandIn(certs, {
      knobs: {
        pendingPolls: 0,
        testSetRequired: { ...SMALL, acceptedInvoices: 1, acceptedCreditNotes: 1, acceptedDocuments: 2 },
      },
    });
    await standIn.dianCaPem();
  }, 120_000);

  const call = async (operation: string, params: Record<string, string>) =>
    (await post(standIn, await soapRequest(sender, operation, params), operation)).text();

  /** Sends `xml` alone in a test-set batch and answers GetStatusZip's text. */
  const sendAlone = async (xml: Uint8Array) => {
    const upload = await call("SendTestSetAsync", {
      fileName: "set.zip",
      contentFile: zipBase64({ "doc.xml": xml }),
      testSetId: TEST_SET_ID,
    });
    return call("GetStatusZip", { trackId: field(upload, "ZipKey") ?? "" });
  };

  it("tallies per kind, closes the set at its minimums, then answers later batches with the set's status", async () => {
    const invoice = dianInvoice(1);
    const built = await buildSignedDocument(invoice, signer, signedAtIssue(invoice));
    expect(field(await sendAlone(built.xml), "StatusCode")).toBe("00");
    expect(standIn.testSetTally(TEST_SET_ID)).toMatchObject({
      status: "en_proceso",
      invoices: { sent: 1, accepted: 1, rejected: 0 },
    });

    const credit = dianCreditNote(invoice, built.authorityCode);
    const note = await buildSignedDocument(credit, signer, signedAtIssue(credit));
    expect(field(await sendAlone(note.xml), "StatusCode")).toBe("00");
    expect(standIn.testSetTally(TEST_SET_ID)).toMatchObject({
      status: "aceptado",
      creditNotes: { sent: 1, accepted: 1, rejected: 0 },
    });

    // a later batch: not validated, the set's status instead, in DIAN's recorded shape
    const later = dianInvoice(1);
    const laterBuilt = await buildSignedDocument(later, signer, signedAtIssue(later));
    const answer = await sendAlone(laterBuilt.xml);
    expect(field(answer, "StatusCode")).toBe("2");
    expect(field(answer, "IsValid")).toBe("false");
    expect(field(answer, "StatusDescription")).toBe(
      `Set de prueba con identificador ${TEST_SET_ID} se encuentra Aceptado.`,
    );
    expect(answer).toContain('<b:XmlDocumentKey i:nil="true"/>');
    expect(answer).toContain('<b:XmlBase64Bytes i:nil="true"/>');
    expect(standIn.testSetTally(TEST_SET_ID).invoices.sent).toBe(1);

    // and our client reads it: the document is not validated, the set is accepted
    const read = readAnswer("GetStatusZip", new TextEncoder().encode(answer));
    if (!("result" in read)) throw new Error("a Fault");
    const outcome = batchOutcome(read.result, { documentKey: laterBuilt.authorityCode });
    expect(outcome).toMatchObject({ status: "rejected", statusCode: "2" });
    expect(testSetStatusOf(outcome.authorityMessage)).toEqual({ testSetId: TEST_SET_ID, status: "aceptado" });
  });

  it("the control endpoint shows a set's tally", async () => {
    const response = await standIn.fetch(`/_sandbox/dian/test-set?id=${TEST_SET_ID}`);
    expect(await response.json()).toMatchObject({ testSetId: TEST_SET_ID, status: "aceptado" });
    expect((await standIn.fetch("/_sandbox/dian/test-set?id=<x>")).status).toBe(400);
  });
});
