/**
 * GET /documents/{reference}/attached-document on the sandbox provider, through our tax client: the
 * AttachedDocument of an accepted document is the one DIAN mode builds — signed, and verified by
 * xmlsec1 against the sandbox's CA (`GET /_sandbox/certificates`), valid against UBL 2.1, carrying
 * the document the shared DIAN builder signed and the stand-in DIAN's signed ApplicationResponse,
 * each verifying and validating on its own — and says what the document says (number, parties,
 * dates, totals, the CUFE or CUDE the sandbox answered, the numbering resolution); no text value can
 * inject markup. Anything but an accepted document is a typed refusal.
 */
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { embeddedDocuments, xmllintValidate, xmlsecVerify } from "../../devkit/dian/xml-tools.ts";
import { SANDBOX_SOFTWARE } from "../../sandbox/attached-document.ts";
import { createSandboxProvider } from "../../sandbox/provider.ts";
import { sandboxSigners } from "../../sandbox/signers.ts";
import { computeCude } from "../../shared/co/cufe.ts";
import { ProviderMalformedError, ProviderRejectedError } from "../../shared/ports/providers/errors.ts";
import type { SubmitDocumentRequest } from "../../shared/ports/providers/protocol.ts";
import { createTaxClient } from "../../shared/providers/tax/client.ts";
import {
  cents,
  readAttachedDocument,
  taxTotalCents,
  text,
  type XmlNode,
} from "../support/attached-document.ts";
import { failure, makeDocument, SANDBOX_KEY } from "./fixtures.ts";

const sandbox = createSandboxProvider();
const client = createTaxClient({
  baseUrl: "http://sandbox.local",
  apiKey: SANDBOX_KEY,
  // no test here waits for a timeout: room for the sandbox's signing on a loaded machine
  timeoutMs: 5_000,
  fetch: sandbox.fetch,
});
beforeEach(() => sandbox.reset());
// the process's sandbox certificates, generated once, before the timed calls
beforeAll(() => sandboxSigners(), 60_000);

/** The CA the sandbox's signatures chain to, as its control endpoint serves it. */
async function sandboxCa(): Promise<string> {
  const answer = await sandbox.fetch("/_sandbox/certificates");
  expect(answer.status).toBe(200);
  const body = (await answer.json()) as { ca_pem: string; issuer_certificate_pem: string };
  expect(body.issuer_certificate_pem).toMatch(/^-----BEGIN CERTIFICATE-----/);
  return body.ca_pem;
}

/** The sts:DianExtensions of a signed document: its first UBLExtension (the second is the signature). */
const dianExtensions = (document: XmlNode) =>
  document["ext:UBLExtensions"]["ext:UBLExtension"][0]["ext:ExtensionContent"]["sts:DianExtensions"];

const UBL = "urn:oasis:names:specification:ubl:schema:xsd:";

/** Submits `doc`, expects it accepted, and returns its code and its AttachedDocument as text. */
async function acceptedXml(doc: SubmitDocumentRequest): Promise<{ code: string; xml: string }> {
  const outcome = await client.submit(doc);
  expect(outcome.status).toBe("accepted");
  const code = outcome.authority_code ?? "";
  const bytes = await client.attachedDocument(doc.reference, { authorityCode: code });
  return { code, xml: new TextDecoder().decode(bytes) };
}

const lines = (document: XmlNode, name: string): XmlNode[] => {
  const found = document[name];
  return Array.isArray(found) ? found : [found];
};

describe("an accepted invoice's AttachedDocument", () => {
  it("is signed as DIAN mode signs it: the container, the document and DIAN's response each verify and validate", async () => {
    const doc = makeDocument();
    const { xml } = await acceptedXml(doc);
    const bytes = new TextEncoder().encode(xml);
    const ca = await sandboxCa();
    expect((await xmlsecVerify(bytes, ca)).output).toContain("SignedInfo References (ok/all): 3/3");
    expect((await xmllintValidate(bytes, "attached_document")).ok).toBe(true);
    const { document, applicationResponse } = await embeddedDocuments(bytes);
    expect((await xmlsecVerify(document, ca)).ok).toBe(true);
    expect((await xmllintValidate(document, "invoice")).ok).toBe(true);
    expect((await xmlsecVerify(applicationResponse, ca)).ok).toBe(true);
    expect((await xmllintValidate(applicationResponse, "application_response")).ok).toBe(true);
  });

  it("is UBL 2.1 with the invoice's number, parties, dates, totals and CUFE, and the acceptance", async () => {
    const doc = makeDocument();
    const { code, xml } = await acceptedXml(doc);
    const { container, document, response } = readAttachedDocument(xml);

    expect(container["@xmlns"]).toBe(`${UBL}AttachedDocument-2`);
    expect(container["@xmlns:cbc"]).toBe(`${UBL}CommonBasicComponents-2`);
    expect(container["@xmlns:cac"]).toBe(`${UBL}CommonAggregateComponents-2`);
    expect(text(container["cbc:UBLVersionID"])).toBe("UBL 2.1");
    expect(text(container["cbc:CustomizationID"])).toBe("Documentos adjuntos");
    expect(text(container["cbc:ProfileExecutionID"])).toBe("2");
    expect(container["cbc:UUID"]).toEqual({ "#text": code, "@schemeName": "CUFE-SHA384" });
    expect(text(container["cbc:ParentDocumentID"])).toBe(doc.number);
    expect(text(container["cbc:DocumentType"])).toBe("Contenedor de Factura Electrónica");
    const sender = container["cac:SenderParty"]["cac:PartyTaxScheme"];
    expect(text(sender["cbc:RegistrationName"])).toBe(doc.issuer.legal_name);
    expect(sender["cbc:CompanyID"]).toMatchObject({
      "#text": "900123456",
      "@schemeID": "8",
      "@schemeName": "31",
    });
    const receiver = container["cac:ReceiverParty"]["cac:PartyTaxScheme"];
    expect(text(receiver["cbc:RegistrationName"])).toBe("Ana Gómez");
    expect(receiver["cbc:CompanyID"]).toMatchObject({ "#text": "1020304050", "@schemeName": "13" });

    // the invoice it carries
    expect(text(document["cbc:ID"])).toBe(doc.number);
    expect(document["cbc:UUID"]).toMatchObject({ "#text": code, "@schemeName": "CUFE-SHA384" });
    expect(text(document["cbc:IssueDate"])).toBe("2026-11-20");
    expect(text(document["cbc:IssueTime"])).toBe("10:30:00-05:00");
    const money = document["cac:LegalMonetaryTotal"];
    expect(text(money["cbc:LineExtensionAmount"])).toBe("110000.00");
    expect(text(money["cbc:TaxExclusiveAmount"])).toBe("100000.00");
    expect(text(money["cbc:PayableAmount"])).toBe("129000.00");
    expect(taxTotalCents(document)).toBe(cents("19000.00"));
    expect(lines(document, "cac:InvoiceLine").map((l) => text(l["cac:Item"]["cbc:Description"]))).toEqual([
      "Servicio de consultoría",
      "Libro técnico",
    ]);
    const extensions = dianExtensions(document);
    expect(text(extensions["sts:QRCode"])).toBe(
      `https://catalogo-vpfe-hab.dian.gov.co/document/searchqr?documentkey=${code}`,
    );
    // no numbering in the request: the sandbox's default resolution, with the number's own prefix
    expect(extensions["sts:InvoiceControl"]).toEqual({
      "sts:InvoiceAuthorization": "18760000001",
      "sts:AuthorizationPeriod": { "cbc:StartDate": "2019-01-19", "cbc:EndDate": "2030-01-19" },
      "sts:AuthorizedInvoices": { "sts:Prefix": "SETP", "sts:From": "1", "sts:To": "999999999999999" },
    });
    expect(text(extensions["sts:SoftwareProvider"]["sts:SoftwareID"])).toBe(SANDBOX_SOFTWARE.id);
    const signature =
      document["ext:UBLExtensions"]["ext:UBLExtension"][1]["ext:ExtensionContent"]["ds:Signature"];
    expect(signature["@Id"]).toBe(`xmldsig-${doc.reference}`);

    // the authority's acceptance, and the container's record of it
    const answer = response["cac:DocumentResponse"];
    expect(text(answer["cac:Response"]["cbc:ResponseCode"])).toBe("02");
    expect(answer["cac:DocumentReference"]["cbc:UUID"]).toMatchObject({ "#text": code });
    expect(text(response["cac:SenderParty"]["cac:PartyTaxScheme"]["cbc:RegistrationName"])).toMatch(
      /Aduanas Nacionales/,
    );
    const reference = container["cac:ParentDocumentLineReference"]["cac:DocumentReference"];
    expect(text(reference["cbc:DocumentType"])).toBe("ApplicationResponse");
    expect(reference["cbc:UUID"]).toEqual({ "#text": code, "@schemeName": "CUFE-SHA384" });
    expect(text(reference["cac:ResultOfVerification"]["cbc:ValidationResultCode"])).toBe("02");
    expect(text(reference["cac:ResultOfVerification"]["cbc:ValidationDate"])).toBe(
      text(response["cbc:IssueDate"]),
    );
    expect(text(reference["cac:ResultOfVerification"]["cbc:ValidationTime"])).toBe(
      text(response["cbc:IssueTime"]),
    );
  });

  it("carries the request's numbering resolution when it has one", async () => {
    const doc = makeDocument((d) => {
      d.number = "FE990000123";
      d.numbering = {
        resolution_number: "18764000001234",
        start_date: "2026-01-01",
        end_date: "2027-12-31",
        prefix: "FE",
        from: "990000000",
        to: "990009999",
      };
    });
    const { document } = readAttachedDocument((await acceptedXml(doc)).xml);
    expect(dianExtensions(document)["sts:InvoiceControl"]).toEqual({
      "sts:InvoiceAuthorization": "18764000001234",
      "sts:AuthorizationPeriod": { "cbc:StartDate": "2026-01-01", "cbc:EndDate": "2027-12-31" },
      "sts:AuthorizedInvoices": { "sts:Prefix": "FE", "sts:From": "990000000", "sts:To": "990009999" },
    });
  });

  it("is the same bytes each time it is asked for, and each request is logged", async () => {
    const doc = makeDocument();
    const { code, xml } = await acceptedXml(doc);
    const again = await client.attachedDocument(doc.reference, { authorityCode: code });
    expect(new TextDecoder().decode(again)).toBe(xml);
    expect(sandbox.attachedDocumentRequests.map((r) => [r.reference, r.result])).toEqual([
      [doc.reference, "served"],
      [doc.reference, "served"],
    ]);
  });

  it("of a credit note carries its CUDE as CUDE-SHA384 and the corrected invoice's CUFE", async () => {
    const invoice = makeDocument();
    const { code: cufe } = await acceptedXml(invoice);
    const note = makeDocument((d) => {
      d.kind = "credit_note";
      d.number = `NC${d.number.slice(4)}`;
      delete d.issuer.technical_key;
      d.issuer.software_pin = "12345";
      d.billing_reference = { number: invoice.number, issue_date: invoice.issue_date, authority_code: cufe };
      d.correction = { concept_code: "2", reason: "Anulación de la factura" };
    });
    const { code: cude, xml } = await acceptedXml(note);
    const { container, document } = readAttachedDocument(xml);
    // the CUDE the sandbox answered is the one the DIAN builder computed, with the note's software PIN
    expect(cude).toBe(
      await computeCude({
        number: note.number,
        issueDate: note.issue_date,
        issueTime: note.issue_time,
        subtotal: note.totals.subtotal,
        iva: "19000.00",
        inc: "0.00",
        ica: "0.00",
        total: note.totals.total,
        issuerNit: note.issuer.nit,
        buyerId: note.buyer.id_number,
        softwarePin: "12345",
        environment: note.environment,
      }),
    );
    const bytes = new TextEncoder().encode(xml);
    const embedded = await embeddedDocuments(bytes);
    expect((await xmlsecVerify(bytes, await sandboxCa())).ok).toBe(true);
    expect((await xmllintValidate(embedded.document, "credit_note")).ok).toBe(true);
    expect(container["cbc:UUID"]).toEqual({ "#text": cude, "@schemeName": "CUDE-SHA384" });
    expect(document["cbc:UUID"]).toMatchObject({ "#text": cude, "@schemeName": "CUDE-SHA384" });
    expect(document["cac:BillingReference"]["cac:InvoiceDocumentReference"]["cbc:UUID"]).toEqual({
      "#text": cufe,
      "@schemeName": "CUFE-SHA384",
    });
    expect(text(document["cac:DiscrepancyResponse"]["cbc:ResponseCode"])).toBe("2");
    expect(lines(document, "cac:CreditNoteLine")).toHaveLength(2);
  });
});

describe("text values", () => {
  // Markup, entity references, a CDATA terminator and characters XML cannot hold, in every free-text field.
  const hostile = (field: string) =>
    `${field} </cbc:RegistrationName><cbc:Evil>x</cbc:Evil> ]]><cbc:Evil/> &amp; &#x41; "q" 'a' <!-- c --> \u0007\u0000\uFFFE fin`;
  /** What XML 1.0 can hold of it: tab, LF, CR and from U+0020 up, without U+FFFE/U+FFFF. */
  const clean = (value: string) =>
    [...value]
      .filter((c) => {
        const code = c.codePointAt(0) ?? 0;
        return (
          code === 9 || code === 10 || code === 13 || (code >= 0x20 && code !== 0xfffe && code !== 0xffff)
        );
      })
      .join("");

  it("cannot inject markup: every name, description and reason reads back exactly as text", async () => {
    const doc = makeDocument((d) => {
      d.buyer.name = hostile("Comprador");
      d.issuer.legal_name = hostile("Emisor");
      d.issuer.trade_name = hostile("Comercial");
      d.notes = hostile("Nota");
      const [first] = d.lines;
      if (first) first.description = hostile("Línea");
    });
    const { xml } = await acceptedXml(doc);
    expect(xml).not.toMatch(/<cbc:Evil/);
    const { container, document } = readAttachedDocument(xml);

    expect(text(container["cac:ReceiverParty"]["cac:PartyTaxScheme"]["cbc:RegistrationName"])).toBe(
      clean(hostile("Comprador")),
    );
    expect(text(container["cac:SenderParty"]["cac:PartyTaxScheme"]["cbc:RegistrationName"])).toBe(
      clean(hostile("Emisor")),
    );
    const buyer = document["cac:AccountingCustomerParty"]["cac:Party"];
    expect(text(buyer["cac:PartyTaxScheme"]["cbc:RegistrationName"])).toBe(clean(hostile("Comprador")));
    const issuer = document["cac:AccountingSupplierParty"]["cac:Party"];
    expect(text(issuer["cac:PartyName"]["cbc:Name"])).toBe(clean(hostile("Comercial")));
    expect(text(document["cbc:Note"])).toBe(clean(hostile("Nota")));
    const [line] = lines(document, "cac:InvoiceLine");
    expect(text(line["cac:Item"]["cbc:Description"])).toBe(clean(hostile("Línea")));
    // nothing else appeared: the same elements as a document without hostile text
    const plain = readAttachedDocument((await acceptedXml(makeDocument((d) => (d.notes = "n")))).xml);
    expect(Object.keys(container)).toEqual(Object.keys(plain.container));
    expect(Object.keys(document)).toEqual(Object.keys(plain.document));
    expect(Object.keys(buyer)).toEqual(
      Object.keys(plain.document["cac:AccountingCustomerParty"]["cac:Party"]),
    );
  });
});

describe("anything but an accepted document", () => {
  it("is 409 document_not_accepted for a pending or rejected one, 404 document_not_found for one never received", async () => {
    const pending = makeDocument((d) => {
      const [first] = d.lines;
      if (first) first.description = "Servicio PENDIENTE";
    });
    const rejected = makeDocument((d) => (d.buyer.id_number = "999999999"));
    expect((await client.submit(pending)).status).toBe("pending");
    expect((await client.submit(rejected)).status).toBe("rejected");
    const never = crypto.randomUUID();
    const code = "a".repeat(96);

    for (const [reference, status, providerCode] of [
      [pending.reference, 409, "document_not_accepted"],
      [rejected.reference, 409, "document_not_accepted"],
      [never, 404, "document_not_found"],
    ] as const) {
      const error = await failure(() => client.attachedDocument(reference, { authorityCode: code }));
      expect(error).toBeInstanceOf(ProviderRejectedError);
      expect(error).toMatchObject({
        status,
        providerCode,
        operation: "attached_document",
        maybeProcessed: false,
      });
    }
    expect(sandbox.attachedDocumentRequests.map((r) => r.result)).toEqual([
      "not_accepted",
      "not_accepted",
      "not_found",
    ]);
  });

  it("honours injected faults: a 503, and a garbled answer the client refuses", async () => {
    const doc = makeDocument();
    const { code } = await acceptedXml(doc);
    sandbox.setKnobs({
      failNext: [
        { kind: "error", on: "attached_document" },
        { kind: "malformed", on: "attached_document" },
      ],
    });
    expect(
      await failure(() => client.attachedDocument(doc.reference, { authorityCode: code })),
    ).toMatchObject({
      kind: "unavailable",
    });
    const garbled = await failure(() => client.attachedDocument(doc.reference, { authorityCode: code }));
    expect(garbled).toBeInstanceOf(ProviderMalformedError);
    expect(garbled.message).toMatch(/not an AttachedDocument/);
  });
});
