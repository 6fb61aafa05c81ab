/**
 * The stand-in's other operations and its control endpoints: a duplicate answered 90 with the earlier
 * key and ApplicationResponse, GetStatus of a known and an unknown CUFE, a test-set batch in process
 * then done, GetNumberingRange's codes, SendTestSetAsync in production, a recorded answer replayed
 * once, reset, and every request written raw to the requests folder.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dianInvoice, signedAtIssue, TEST_SOFTWARE } from "../../devkit/dian/documents.ts";
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
  TEST_SET_ID,
  zipBase64,
} from "../support/dian-stand-in.ts";

let sender: Sender;
let signer: Signer;
let standIn: DianStandIn;
let requestsDir: string;

beforeAll(async () => {
  const certs = createTestCertificates();
  sender = senderOf(certs);
  signer = await openPkcs12(certs.p12, certs.password);
  requestsDir = mkdtempSync(join(tmpdir(), "einv-dian-requests-"));
  standIn = seededStandIn(certs, { requestsDir, knobs: { pendingPolls: 2 } });
  await standIn.dianCaPem();
}, 120_000);

afterAll(() => rmSync(requestsDir, { recursive: true, force: true }));

async function call(operation: string, params: Record<string, string>) {
  const response = await post(standIn, await soapRequest(sender, operation, params), operation);
  return { status: response.status, text: await response.text() };
}

const invoiceZip = async (lines = 1) => {
  const input = dianInvoice(lines);
  const built = await buildSignedDocument(input, signer, signedAtIssue(input));
  return { ...built, zip: zipBase64({ "invoice.xml": built.xml }) };
};

describe("SendBillSync twice, and GetStatus", () => {
  it("answers a resend with rule 90, the earlier key and ApplicationResponse; GetStatus finds it", async () => {
    const { zip, authorityCode } = await invoiceZip();
    const first = (await call("SendBillSync", { fileName: "a.zip", contentFile: zip })).text;
    expect(field(first, "StatusCode")).toBe("00");
    const again = (await call("SendBillSync", { fileName: "b.zip", contentFile: zip })).text;
    expect(field(again, "StatusCode")).toBe("99");
    expect(field(again, "IsValid")).toBe("false");
    expect(errorMessages(again)).toEqual(["Regla: 90, Rechazo: Documento procesado anteriormente."]);
    expect(field(again, "XmlDocumentKey")).toBe(authorityCode);
    expect(field(again, "XmlBase64Bytes")).toBe(field(first, "XmlBase64Bytes"));

    const status = (await call("GetStatus", { trackId: authorityCode })).text;
    expect(field(status, "StatusCode")).toBe("00");
    expect(field(status, "XmlDocumentKey")).toBe(authorityCode);
    expect(status).toContain("GetStatusResponse");
  });

  it("answers 66 for an unknown CUFE and 89 for a short trackId", async () => {
    expect(field((await call("GetStatus", { trackId: "f".repeat(96) })).text, "StatusCode")).toBe("66");
    const short = (await call("GetStatus", { trackId: "abc" })).text;
    expect(field(short, "StatusCode")).toBe("89");
    expect(field(short, "StatusDescription")).toBe("TrackId inválido (Length).");
  });
});

describe("a test set", () => {
  it("answers a ZipKey, keeps the batch in process for two polls, then gives its results", async () => {
    const { zip, authorityCode } = await invoiceZip();
    const upload = (
      await call("SendTestSetAsync", { fileName: "set.zip", contentFile: zip, testSetId: TEST_SET_ID })
    ).text;
    const zipKey = field(upload, "ZipKey") ?? "";
    expect(zipKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(upload).toContain('<b:ErrorMessageList i:nil="true"');
    for (let poll = 0; poll < 2; poll++) {
      const pending = (await call("GetStatusZip", { trackId: zipKey })).text;
      expect(pending).toContain("<b:StatusCode/>");
      expect(field(pending, "StatusDescription")).toBe("Batch en proceso de validación.");
    }
    const done = (await call("GetStatusZip", { trackId: zipKey })).text;
    expect(done).toContain("<b:DianResponse>");
    expect(field(done, "StatusCode")).toBe("00");
    expect(field(done, "XmlDocumentKey")).toBe(authorityCode);
  });

  it("settles a batch whose ZipKey was never heard of: GetStatus by the CUFE counts as a poll", async () => {
    // DIAN validates a batch on its own, asked or not; a client that lost the ZipKey (a timeout, a
    // garbled answer) can only ask GetStatus, which must not answer 98 for ever
    const { zip, authorityCode } = await invoiceZip();
    await call("SendTestSetAsync", { fileName: "set.zip", contentFile: zip, testSetId: TEST_SET_ID });
    for (let poll = 0; poll < 2; poll++) {
      const pending = (await call("GetStatus", { trackId: authorityCode })).text;
      expect(field(pending, "StatusCode")).toBe("98");
      expect(field(pending, "StatusDescription")).toBe("En Proceso");
    }
    const done = (await call("GetStatus", { trackId: authorityCode })).text;
    expect(field(done, "StatusCode")).toBe("00");
    expect(field(done, "XmlDocumentKey")).toBe(authorityCode);
  });

  it("answers a batch's duplicate as DIAN's GetStatus does: ours accepted (00), another's number 99 with rule 90", async () => {
    // [D] GetStatusZip answers each batch document with GetStatus(trackId): XmlDocumentKey is that
    // document's own key, 00 once the key's ApplicationResponse exists, else the failed rule 90 of
    // ValidateDocumentDuplicity with the earlier document's key in StatusDescription
    const settle = async (zip: string) => {
      const upload = await call("SendTestSetAsync", {
        fileName: "set.zip",
        contentFile: zip,
        testSetId: TEST_SET_ID,
      });
      const zipKey = field(upload.text, "ZipKey") ?? "";
      for (let poll = 0; poll < 2; poll++) await call("GetStatusZip", { trackId: zipKey });
      return (await call("GetStatusZip", { trackId: zipKey })).text;
    };
    const input = dianInvoice(1);
    const first = await buildSignedDocument(input, signer, signedAtIssue(input));
    const firstZip = zipBase64({ "invoice.xml": first.xml });
    expect(
      field((await call("SendBillSync", { fileName: "a.zip", contentFile: firstZip })).text, "StatusCode"),
    ).toBe("00");

    const again = await settle(firstZip);
    expect(field(again, "StatusCode")).toBe("00");
    expect(field(again, "XmlDocumentKey")).toBe(first.authorityCode);

    const later = {
      ...input,
      document: { ...input.document, reference: crypto.randomUUID(), issue_time: "11:45:00-05:00" },
    };
    const reused = await buildSignedDocument(later, signer, signedAtIssue(later));
    const other = await settle(zipBase64({ "invoice.xml": reused.xml }));
    expect(field(other, "StatusCode")).toBe("99");
    expect(errorMessages(other)).toEqual(["Regla: 90, Rechazo: Documento procesado anteriormente."]);
    expect(field(other, "XmlDocumentKey")).toBe(reused.authorityCode);
    expect(field(other, "StatusDescription")).toBe(
      `Documento ${input.document.number} procesado anteriormente. CUFE ${first.authorityCode} `,
    );
    // and GetStatus says the same about it
    expect(field((await call("GetStatus", { trackId: reused.authorityCode })).text, "StatusCode")).toBe("99");
  });

  it("holds a batch until released when asked to", async () => {
    standIn.setKnobs({ holdBatches: true });
    try {
      const { zip } = await invoiceZip();
      const upload = (
        await call("SendTestSetAsync", { fileName: "set.zip", contentFile: zip, testSetId: TEST_SET_ID })
      ).text;
      const zipKey = field(upload, "ZipKey") ?? "";
      for (let poll = 0; poll < 4; poll++) {
        expect(field((await call("GetStatusZip", { trackId: zipKey })).text, "StatusDescription")).toBe(
          "Batch en proceso de validación.",
        );
      }
      expect((await standIn.fetch("/_sandbox/dian/release", { method: "POST" })).status).toBe(200);
      expect(field((await call("GetStatusZip", { trackId: zipKey })).text, "StatusCode")).toBe("00");
    } finally {
      standIn.setKnobs({ holdBatches: false });
    }
  });

  it("answers 89 to a trackId that is not a GUID and 66 to an unknown one", async () => {
    expect(field((await call("GetStatusZip", { trackId: "x".repeat(30) })).text, "StatusDescription")).toBe(
      "Formato trackId inválido.",
    );
    expect(field((await call("GetStatusZip", { trackId: crypto.randomUUID() })).text, "StatusCode")).toBe(
      "66",
    );
  });

  it("refuses SendTestSetAsync in production", async () => {
    standIn.registry.environment = "produccion";
    try {
      const { zip } = await invoiceZip();
      const text = (
        await call("SendTestSetAsync", { fileName: "set.zip", contentFile: zip, testSetId: TEST_SET_ID })
      ).text;
      expect(field(text, "ProcessedMessage")).toBe("Acción no disponible en producción.");
      expect(text).toContain('<b:ZipKey i:nil="true"/>');
    } finally {
      standIn.registry.environment = "habilitacion";
    }
  });
});

describe("GetNumberingRange", () => {
  const ask = (accountCode: string, accountCodeT: string, softwareCode: string) =>
    call("GetNumberingRange", { accountCode, accountCodeT, softwareCode }).then((r) => r.text);

  it("lists the range (100), and says 401, 302 and 303 as DIAN does", async () => {
    const ok = await ask("900123456", "900123456", TEST_SOFTWARE.id);
    expect(field(ok, "OperationCode")).toBe("100");
    expect(field(ok, "OperationDescription")).toBe("Acción completada OK.");
    expect(field(ok, "Prefix")).toBe("SETP");
    expect(field(ok, "FromNumber")).toBe("990000000");
    expect(field(ok, "TechnicalKey")).toBe("fc8eac422eba16e22ffd8c6f94b3f40a6e38162c");
    expect(field(await ask("800197268", "900123456", TEST_SOFTWARE.id), "OperationCode")).toBe("401");
    expect(field(await ask("900123456", "900123456", "other-software"), "OperationCode")).toBe("302");
    expect(field(await ask("900123456", "811111111", TEST_SOFTWARE.id), "OperationCode")).toBe("303");
  });

  it("says 301 when no range is current", async () => {
    const issuer = standIn.registry.issuers[0] as NonNullable<DianStandIn["registry"]["issuers"][0]>;
    standIn.putIssuer({ ...issuer, ranges: issuer.ranges.map((r) => ({ ...r, validTo: "2020-01-01" })) });
    try {
      expect(field(await ask("900123456", "900123456", TEST_SOFTWARE.id), "OperationCode")).toBe("301");
    } finally {
      standIn.putIssuer(issuer);
    }
  });
});

describe("control", () => {
  it("replays a recorded answer exactly once, for its operation only", async () => {
    const recorded =
      '<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body>recorded ñ</s:Body></s:Envelope>';
    const set = await standIn.fetch("/_sandbox/dian/next-response?operation=GetStatus", {
      method: "POST",
      body: recorded,
    });
    expect(set.status).toBe(200);
    const trackId = "a".repeat(96);
    const replayed = await call("GetStatus", { trackId });
    expect(replayed.text).toBe(recorded);
    expect(field((await call("GetStatus", { trackId })).text, "StatusCode")).toBe("66");
    const bad = await standIn.fetch("/_sandbox/dian/next-response?operation=Nope", {
      method: "POST",
      body: "x",
    });
    expect(bad.status).toBe(400);
  });

  it("forgets next responses and documents on reset", async () => {
    await standIn.fetch("/_sandbox/dian/next-response?operation=GetStatus", { method: "POST", body: "<x/>" });
    const { zip, authorityCode } = await invoiceZip();
    await call("SendBillSync", { fileName: "a.zip", contentFile: zip });
    expect((await standIn.fetch("/_sandbox/dian/reset", { method: "POST" })).status).toBe(200);
    expect(standIn.documents).toHaveLength(0);
    expect(field((await call("GetStatus", { trackId: authorityCode })).text, "StatusCode")).toBe("66");
  });

  it("writes every request, raw, to <requestsDir>/<time>-<operation>.xml", async () => {
    const before = readdirSync(requestsDir).length;
    const envelope = await soapRequest(sender, "GetStatus", { trackId: "b".repeat(96) });
    await post(standIn, envelope, "GetStatus");
    const files = readdirSync(requestsDir).sort();
    expect(files.length).toBe(before + 1);
    const last = files.filter((f) => f.endsWith("-GetStatus.xml")).pop() ?? "";
    expect(last).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z(-\d+)?-GetStatus\.xml$/);
    expect(files.map((f) => readFileSync(join(requestsDir, f), "utf8"))).toContain(envelope);
  });

  it("injects faults per operation: a 500, a garbage body, a SOAP Fault", async () => {
    standIn.setKnobs({
      failNext: [
        { kind: "error", operation: "GetStatus" },
        { kind: "garbage", operation: "GetStatus" },
        { kind: "fault", operation: "GetStatus" },
      ],
    });
    const trackId = "c".repeat(96);
    const error = await call("GetStatus", { trackId });
    expect(error.status).toBe(500);
    expect(error.text).toContain("<html>");
    const garbage = await call("GetStatus", { trackId });
    expect(garbage.status).toBe(200);
    expect(garbage.text).not.toContain("Envelope");
    const soapFault = await call("GetStatus", { trackId });
    expect(soapFault.status).toBe(500);
    expect(field(soapFault.text, "Value")).toBe("s:Client");
    expect(field((await call("GetStatus", { trackId })).text, "StatusCode")).toBe("66");
  });
});
