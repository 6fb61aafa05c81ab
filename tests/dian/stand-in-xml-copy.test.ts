/**
 * The stand-in's GetXmlByDocumentKey, as DIAN's code answers it ([D] WcfDianCustomerServices /
 * DianPAServices.GetXmlByDocumentKey): 100 with exactly the bytes it received for an accepted
 * document; 404 for a rejected, unknown or still-in-process one; 401 for a certificate that is
 * neither the issuer's nor the buyer's; 89 for a short track id. And what keeps it bounded: only
 * accepted documents' XML is kept, the copies as a whole are capped (the oldest dropped), and the
 * store file is read back from its tail.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dianInvoice, signedAtIssue } from "../../devkit/dian/documents.ts";
import type { DianResponse } from "../../sandbox/dian/answers.ts";
import type { ReceivedDocument } from "../../sandbox/dian/document.ts";
import type { DianStandIn } from "../../sandbox/dian/index.ts";
import { persistStore } from "../../sandbox/dian/persistence.ts";
import { DianStore, STORE_LIMITS } from "../../sandbox/dian/store.ts";
import { fromBase64 } from "../../shared/ports/providers/deliver.ts";
import { openPkcs12, type Signer } from "../../shared/providers/dian/certificate.ts";
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
let stranger: Sender;
let buyer: Sender;
let signer: Signer;
let standIn: DianStandIn;

beforeAll(async () => {
  const certs = createTestCertificates();
  sender = senderOf(certs);
  signer = await openPkcs12(certs.p12, certs.password);
  standIn = seededStandIn(certs, { knobs: { pendingPolls: 1 } });
  const strangerCerts = createTestCertificates({ nit: "900999999" });
  stranger = senderOf(strangerCerts);
  standIn.trustCa(strangerCerts.caPem);
  // the devkit invoice's buyer is NIT 800197268
  const buyerCerts = createTestCertificates({ nit: "800197268" });
  buyer = senderOf(buyerCerts);
  standIn.trustCa(buyerCerts.caPem);
}, 120_000);

async function call(operation: string, params: Record<string, string>, as = sender) {
  const response = await post(standIn, await soapRequest(as, operation, params), operation);
  return { status: response.status, text: await response.text() };
}

const copyOf = (trackId: string, as = sender) => call("GetXmlByDocumentKey", { trackId }, as);

async function sent(change?: Parameters<typeof dianInvoice>[1]) {
  const input = dianInvoice(1, change);
  const built = await buildSignedDocument(input, signer, signedAtIssue(input));
  const answer = await call("SendBillSync", {
    fileName: "a.zip",
    contentFile: zipBase64({ "invoice.xml": built.xml }),
  });
  return { ...built, statusCode: field(answer.text, "StatusCode") };
}

describe("GetXmlByDocumentKey", () => {
  it("answers an accepted document's XML: 100, exactly the bytes received, in DIAN's EventResponse", async () => {
    const { xml, authorityCode } = await sent();
    const { status, text } = await copyOf(authorityCode.toUpperCase());
    expect(status).toBe(200);
    expect(text).toContain("GetXmlByDocumentKeyResponse");
    expect(text).toContain(
      '<GetXmlByDocumentKeyResult xmlns:b="http://schemas.datacontract.org/2004/07/EventResponse"',
    );
    expect(text).toMatch(
      /<b:Code>100<\/b:Code><b:Message>Accion completada OK<\/b:Message><b:XmlBytesBase64>/,
    );
    expect(fromBase64(field(text, "XmlBytesBase64") ?? "")).toEqual(xml);
  });

  it("answers 404 for a rejected document (DIAN keeps no validated one) and an unknown code; 89 for a short one", async () => {
    const rejected = await sent((doc) => {
      doc.issuer.technical_key = "0".repeat(40);
    });
    expect(rejected.statusCode).toBe("99");
    const answer = (await copyOf(rejected.authorityCode)).text;
    expect(field(answer, "Code")).toBe("404");
    // the stand-in escapes ' in text (&apos;), which WCF does not: the same XML text either way
    expect(field(answer, "Message")?.replaceAll("&apos;", "'")).toBe(
      `Xml con CUFE: '${rejected.authorityCode}' no encontrado.`,
    );
    expect(answer).toContain('<b:XmlBytesBase64 i:nil="true"/>');
    expect(standIn.documents.find((d) => d.key === rejected.authorityCode)?.copy).toBeNull();
    expect(field((await copyOf("e".repeat(96))).text, "Code")).toBe("404");
    const short = (await copyOf("abc")).text;
    expect(field(short, "Code")).toBe("89");
    expect(field(short, "Message")).toBe("TrackId inválido (Length).");
  });

  it("answers the buyer's certificate too, and 401 to a certificate of neither party", async () => {
    const { authorityCode } = await sent();
    expect(field((await copyOf(authorityCode, buyer)).text, "Code")).toBe("100");
    const refused = (await copyOf(authorityCode, stranger)).text;
    expect(field(refused, "Code")).toBe("401");
    expect(field(refused, "Message")).toBe(
      "NIT: 900999999 del certificado no autorizado para consultar xmls de emisor con NIT: 900123456 y receptor con NIT: 800197268",
    );
  });

  it("answers 404 while the document's test set batch is in process, then 100", async () => {
    const input = dianInvoice(1);
    const built = await buildSignedDocument(input, signer, signedAtIssue(input));
    const contentFile = zipBase64({ "invoice.xml": built.xml });
    await call("SendTestSetAsync", { fileName: "set.zip", contentFile, testSetId: TEST_SET_ID });
    expect(field((await copyOf(built.authorityCode)).text, "Code")).toBe("404");
    expect(field((await call("GetStatus", { trackId: built.authorityCode })).text, "StatusCode")).toBe("98");
    expect(field((await copyOf(built.authorityCode)).text, "Code")).toBe("100");
  });

  it("is an operation of the control endpoint and of the WSDL", async () => {
    const recorded = '<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body/></s:Envelope>';
    const set = await standIn.fetch("/_sandbox/dian/next-response?operation=GetXmlByDocumentKey", {
      method: "POST",
      body: recorded,
    });
    expect(set.status).toBe(200);
    expect((await copyOf("a".repeat(96))).text).toBe(recorded);
    const wsdl = await (await standIn.fetch(`${SERVICE_URL}?wsdl`)).text();
    expect(wsdl).toContain(
      'soapAction="http://wcf.dian.colombia/IWcfDianCustomerServices/GetXmlByDocumentKey"',
    );
  });
});

/** A document as the stand-in read it: only what the store keys it by. */
const received = (n: number): ReceivedDocument =>
  ({
    uuid: n.toString(16).padStart(96, "0"),
    id: `SETP${990_000_000 + n}`,
    typeCode: "01",
    control: { prefix: "SETP" },
    supplier: { id: "900123456" },
    customer: { id: "800197268" },
  }) as ReceivedDocument;
const accepted = { IsValid: true } as DianResponse;

describe("the copies' bounds", () => {
  it("keeps no XML for a rejected document, and drops the oldest copies past STORE_LIMITS.xmlChars", () => {
    const store = new DianStore();
    store.record(received(1), { IsValid: false } as DianResponse, new Uint8Array(10));
    expect(store.find(received(1).uuid)?.copy).toBeNull();
    // three XMLs whose base64 is 40% of the bound each: the third pushes the first copy out
    const xml = new Uint8Array(Math.floor((STORE_LIMITS.xmlChars * 0.4 * 3) / 4));
    for (const n of [2, 3, 4]) store.record(received(n), accepted, xml);
    expect(store.find(received(2).uuid)?.copy).toBeNull();
    expect(store.find(received(2).uuid)?.accepted).toBe(true); // still known to GetStatus
    expect(store.find(received(3).uuid)?.copy?.xmlBase64).toHaveLength(Math.ceil(xml.length / 3) * 4);
    expect(store.find(received(4).uuid)?.copy).not.toBeNull();
  });

  it("reads the store file back from its tail, then rewrites it with what the store kept", () => {
    const dir = mkdtempSync(join(tmpdir(), "einv-dian-store-"));
    try {
      const file = join(dir, "documents.jsonl");
      const first = new DianStore();
      persistStore(first, file);
      for (let n = 1; n <= 20; n++)
        first.record(received(n), accepted, new TextEncoder().encode(`<I n="${n}"/>`));
      const size = readFileSync(file).length;
      const again = new DianStore();
      // a tail of half the file: the last lines only, the first one it cuts skipped
      const read = persistStore(again, file, Math.floor(size / 2));
      expect(read).toBeGreaterThan(5);
      expect(read).toBeLessThan(11);
      expect(again.find(received(1).uuid)).toBeUndefined();
      expect(fromBase64(again.find(received(20).uuid)?.copy?.xmlBase64 ?? "")).toEqual(
        new TextEncoder().encode('<I n="20"/>'),
      );
      expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(read);
      writeFileSync(
        file,
        `${readFileSync(file, "utf8")}{"key":"${"a".repeat(96)}","copy":{"xmlBase64":"@@"}}\n`,
      );
      expect(persistStore(new DianStore(), file)).toBe(read); // a line that fails its checks is skipped
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

afterAll(() => standIn.reset());
