/**
 * A debit note as DIAN asks for it (brief-business §1), worked by hand: interest, an expense with
 * IVA, and a price change with IVA, each a UBL 2.1 DebitNote — no type code, CustomizationID 30,
 * DIAN's profile, the concept in DiscrepancyResponse, the invoice in BillingReference, the totals in
 * RequestedMonetaryTotal, DebitNoteLine with DebitedQuantity — valid against UBL's DebitNote schema
 * (xmllint) and signed so xmlsec1 verifies it; its CUDE recomputed from the XML alone with the PIN,
 * its SoftwareSecurityCode likewise; its file names `nd…`. Then DIAN's stand-in accepts it after its
 * invoice and refuses the references DIAN refuses (DBG02, DBG04a, DBG04b, DBG06).
 */
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import {
  debitLine,
  dianDebitNote,
  dianInvoice,
  signedAtIssue,
  TEST_SOFTWARE,
} from "../../devkit/dian/documents.ts";
import { xmllintValidate, xmlsecVerify } from "../../devkit/dian/xml-tools.ts";
import type { DianStandIn } from "../../sandbox/dian/index.ts";
import { openPkcs12, type Signer } from "../../shared/providers/dian/certificate.ts";
import { buildSignedDocument } from "../../shared/providers/dian/document.ts";
import type { DianDocumentInput } from "../../shared/providers/dian/input.ts";
import { submissionFiles } from "../../shared/providers/dian/package.ts";
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

let certs: ReturnType<typeof createTestCertificates>;
let signer: Signer;
let sender: Sender;
let standIn: DianStandIn;

beforeAll(async () => {
  certs = createTestCertificates();
  signer = await openPkcs12(certs.p12, certs.password);
  sender = senderOf(certs);
  standIn = seededStandIn(certs);
  await standIn.dianCaPem();
}, 120_000);

async function build(input: DianDocumentInput) {
  const signed = await buildSignedDocument(input, signer, signedAtIssue(input));
  return { ...signed, text: new TextDecoder().decode(signed.xml) };
}

const content = (xml: string, name: string) =>
  new RegExp(`<${name}(?: [^>]*)?>([^<]*)</${name}>`).exec(xml)?.[1];
const contents = (xml: string, name: string) =>
  [...xml.matchAll(new RegExp(`<${name}(?: [^>]*)?>([^<]*)</${name}>`, "g"))].map((m) => m[1]);
const element = (xml: string, name: string) =>
  new RegExp(`<${name}[ >][\\s\\S]*?</${name}>`).exec(xml)?.[0] ?? "";
const sha384 = (text: string) => createHash("sha384").update(text, "utf8").digest("hex");

/** The document's own children in order (the elements directly under the root). */
function topLevel(xml: string): string[] {
  const body = xml.replace(/^<\?xml[^>]*\?><DebitNote[^>]*>/, "").replace(/<\/DebitNote>$/, "");
  const names: string[] = [];
  let depth = 0;
  for (const tag of body.matchAll(/<(\/?)([\w:]+)[^>]*?(\/?)>/g)) {
    const [, closing, name, selfClosing] = tag;
    if (closing) depth -= 1;
    else {
      if (depth === 0) names.push(name as string);
      if (!selfClosing) depth += 1;
    }
  }
  return names;
}

/**
 * The CUDE as DIAN's ValidateCufe recomputes it, from the XML alone (brief-business §1): ID,
 * IssueDate, IssueTime, LineExtensionAmount, 01, the IVA TaxTotal, 04, INC, 03, ICA,
 * PayableAmount, the issuer's NIT, the buyer's id, the software PIN, ProfileExecutionID.
 */
function cudeFromXml(xml: string, pin: string): string {
  const totals = element(xml, "cac:RequestedMonetaryTotal");
  const taxOf = (scheme: string) => {
    const block = xml
      .split("<cac:DebitNoteLine>")[0]
      ?.match(/<cac:TaxTotal>[\s\S]*?<\/cac:TaxTotal>/g)
      ?.find((t) => content(element(t, "cac:TaxScheme"), "cbc:ID") === scheme);
    return block ? (content(block, "cbc:TaxAmount") as string) : "0.00";
  };
  const party = (group: string) =>
    content(element(element(xml, group), "cac:PartyTaxScheme"), "cbc:CompanyID");
  return sha384(
    [
      content(xml, "cbc:ID"),
      content(xml, "cbc:IssueDate"),
      content(xml, "cbc:IssueTime"),
      content(totals, "cbc:LineExtensionAmount"),
      "01",
      taxOf("01"),
      "04",
      taxOf("04"),
      "03",
      taxOf("03"),
      content(totals, "cbc:PayableAmount"),
      party("cac:AccountingSupplierParty"),
      party("cac:AccountingCustomerParty"),
      pin,
      content(xml, "cbc:ProfileExecutionID"),
    ].join(""),
  );
}

/** The three notes, worked by hand on paper: what each charges and what it comes to. */
const WORKED = [
  {
    name: "interest (concept 1), not taxed",
    concept: "1" as const,
    lines: [debitLine(1, "Intereses de mora: 30 días al 2 % mensual sobre $2.380.000", 1, 4_760_000n, 0)],
    // 1 × 47 600.00, no IVA (financial interest is excluded: no TaxTotal at all)
    expected: { lineExtension: "47600.00", taxExclusive: "0.00", iva: null, payable: "47600.00" },
  },
  {
    name: "an expense with IVA (concept 2)",
    concept: "2" as const,
    lines: [debitLine(1, "Gastos de envío a Medellín", 1, 2_500_000n, 19)],
    // 25 000.00 + 19 % = 4 750.00 → 29 750.00
    expected: { lineExtension: "25000.00", taxExclusive: "25000.00", iva: "4750.00", payable: "29750.00" },
  },
  {
    name: "a price change with IVA (concept 3)",
    concept: "3" as const,
    lines: [
      debitLine(1, "Ajuste de precio: 10 unidades a $1.500 más", 10, 150_000n, 19),
      debitLine(2, "Ajuste de empaque", 3, 33_333n, 19),
    ],
    // 10 × 1 500.00 = 15 000.00 and 3 × 333.33 = 999.99 → 15 999.99; IVA 2 850.00 + 190.00 = 3 040.00
    expected: { lineExtension: "15999.99", taxExclusive: "15999.99", iva: "3040.00", payable: "19039.99" },
  },
];

describe("a debit note, as Anexo 1.9 asks", () => {
  it.each(WORKED)("$name: the UBL says what was worked by hand, and the CUDE is DIAN's", async (worked) => {
    const invoice = dianInvoice(2);
    const { authorityCode: cufe } = await build(invoice);
    const input = dianDebitNote(invoice, cufe, worked.concept, worked.lines);
    const { xml, text, authorityCode } = await build(input);

    expect(text.startsWith('<?xml version="1.0" encoding="UTF-8" standalone="no"?><DebitNote ')).toBe(true);
    expect(text).toContain('xmlns="urn:oasis:names:specification:ubl:schema:xsd:DebitNote-2"');
    expect(text).not.toContain("TypeCode");
    expect(content(text, "cbc:CustomizationID")).toBe("30");
    expect(content(text, "cbc:ProfileID")).toBe("DIAN 2.1: Nota Débito de Factura Electrónica de Venta");
    expect(text).toContain('<cbc:UUID schemeID="2" schemeName="CUDE-SHA384">');
    const discrepancy = element(text, "cac:DiscrepancyResponse");
    expect([content(discrepancy, "cbc:ReferenceID"), content(discrepancy, "cbc:ResponseCode")]).toEqual([
      invoice.document.number,
      worked.concept,
    ]);
    expect(element(text, "cac:InvoiceDocumentReference")).toBe(
      `<cac:InvoiceDocumentReference><cbc:ID>${invoice.document.number}</cbc:ID><cbc:UUID schemeName="CUFE-SHA384">${cufe}</cbc:UUID><cbc:IssueDate>2026-11-20</cbc:IssueDate></cac:InvoiceDocumentReference>`,
    );
    expect(text).not.toContain("LegalMonetaryTotal");
    const totals = element(text, "cac:RequestedMonetaryTotal");
    expect({
      lineExtension: content(totals, "cbc:LineExtensionAmount"),
      taxExclusive: content(totals, "cbc:TaxExclusiveAmount"),
      payable: content(totals, "cbc:PayableAmount"),
    }).toEqual({
      lineExtension: worked.expected.lineExtension,
      taxExclusive: worked.expected.taxExclusive,
      payable: worked.expected.payable,
    });
    const header = text.split("<cac:DebitNoteLine>")[0] as string;
    const ivaTotal = header.match(/<cac:TaxTotal>[\s\S]*?<\/cac:TaxTotal>/g)?.[0];
    expect(ivaTotal ? content(ivaTotal, "cbc:TaxAmount") : null).toBe(worked.expected.iva);
    expect(contents(text, "cbc:DebitedQuantity")).toEqual(worked.lines.map((l) => l.quantity));
    expect(text).toContain('<cbc:DebitedQuantity unitCode="94">');
    expect(content(text, "cbc:LineCountNumeric")).toBe(String(worked.lines.length));
    // PaymentMeans is mandatory on notes (DAN01), and the header follows the DebitNote schema's order
    expect(topLevel(text)).toEqual([
      "ext:UBLExtensions",
      "cbc:UBLVersionID",
      "cbc:CustomizationID",
      "cbc:ProfileID",
      "cbc:ProfileExecutionID",
      "cbc:ID",
      "cbc:UUID",
      "cbc:IssueDate",
      "cbc:IssueTime",
      "cbc:DocumentCurrencyCode",
      "cbc:LineCountNumeric",
      "cac:DiscrepancyResponse",
      "cac:BillingReference",
      "cac:AccountingSupplierParty",
      "cac:AccountingCustomerParty",
      "cac:PaymentMeans",
      ...(worked.expected.iva ? ["cac:TaxTotal"] : []),
      "cac:RequestedMonetaryTotal",
      ...worked.lines.map(() => "cac:DebitNoteLine"),
    ]);
    // the CUDE from the XML alone, with the software's PIN in place of the technical key
    expect(authorityCode).toBe(cudeFromXml(text, TEST_SOFTWARE.pin));
    expect(content(text, "cbc:UUID")).toBe(authorityCode);
    expect(content(text, "sts:SoftwareSecurityCode")).toBe(
      sha384(`${TEST_SOFTWARE.id}${TEST_SOFTWARE.pin}${content(text, "cbc:ID")}`),
    );
    expect(text).not.toContain("sts:InvoiceControl");

    const schema = await xmllintValidate(xml, "debit_note");
    expect(schema.output).toContain("validates");
    expect(schema.ok).toBe(true);
    expect((await xmlsecVerify(xml, certs.caPem)).ok).toBe(true);
  });

  it("a DebitNoteTypeCode would fail the schema: UBL 2.1 has none (Vendix lost its whole set to it)", async () => {
    const invoice = dianInvoice(1);
    const { authorityCode: cufe } = await build(invoice);
    const { text } = await build(dianDebitNote(invoice, cufe));
    const withCode = text.replace(
      "<cbc:DocumentCurrencyCode>",
      "<cbc:DebitNoteTypeCode>92</cbc:DebitNoteTypeCode><cbc:DocumentCurrencyCode>",
    );
    const schema = await xmllintValidate(new TextEncoder().encode(withCode), "debit_note");
    expect(schema.ok).toBe(false);
    expect(schema.output).toContain("DebitNoteTypeCode");
  });

  it("travels as nd….xml inside z….zip", () => {
    const files = submissionFiles({
      kind: "debit_note",
      issuerNit: "900123456",
      package: { year: 2026, consecutive: 0x1a },
    });
    expect(files).toEqual({ xml: "nd0900123456000260000001a.xml", zip: "z0900123456000260000001a.zip" });
  });
});

describe("DIAN's stand-in", () => {
  async function send(xml: Uint8Array, name = "nd.xml") {
    const envelope = await soapRequest(sender, "SendBillSync", {
      fileName: "nd.zip",
      contentFile: zipBase64({ [name]: xml }),
    });
    const text = await (await post(standIn, envelope, "SendBillSync")).text();
    return { text, code: field(text, "StatusCode"), errors: errorMessages(text) };
  }
  const codes = (errors: string[]) => errors.map((e) => /^Regla: (\w+),/.exec(e)?.[1]);

  async function acceptedInvoice(change?: Parameters<typeof dianInvoice>[1]) {
    const invoice = dianInvoice(2, change);
    const built = await build(invoice);
    expect((await send(built.xml, "fv.xml")).code).toBe("00");
    return { invoice, cufe: built.authorityCode };
  }

  it("accepts a debit note of an invoice it validated: 00, its CUDE as the key, 'Nota Débito' in the message", async () => {
    const { invoice, cufe } = await acceptedInvoice();
    const note = await build(dianDebitNote(invoice, cufe, "2", [debitLine(1, "Flete", 1, 2_500_000n, 19)]));
    const result = await send(note.xml);
    expect(result.errors).toEqual([]);
    expect(result.code).toBe("00");
    expect(field(result.text, "XmlDocumentKey")).toBe(note.authorityCode);
    expect(field(result.text, "StatusMessage")).toMatch(
      /^La Nota Débito electrónica ND\d+, ha sido autorizada\.$/,
    );
  });

  it("DBG04a: a note whose invoice DIAN never validated", async () => {
    const invoice = dianInvoice(2);
    const { authorityCode: cufe } = await build(invoice); // built, never sent
    const result = await send((await build(dianDebitNote(invoice, cufe))).xml);
    expect(result.code).toBe("99");
    expect(result.errors).toEqual([
      "Regla: DBG04a, Rechazo: Documento referenciado no existe en los registros de la DIAN.",
    ]);
  });

  it("DBG02: a note without the invoice's CUFE", async () => {
    const { invoice } = await acceptedInvoice();
    const note = dianDebitNote(invoice, "");
    expect(codes((await send((await build(note)).xml)).errors)).toEqual(["DBG02"]);
  });

  it("DBG06: a note dated before its invoice", async () => {
    const { invoice, cufe } = await acceptedInvoice();
    const note = dianDebitNote(invoice, cufe);
    note.document.issue_date = "2026-11-19";
    const result = await send((await build(note)).xml);
    expect(result.errors).toEqual([
      "Regla: DBG06, Rechazo: Fecha de emisión de la nota es anterior a la fecha de emisión de FE referenciada.",
    ]);
  });

  it("DBG04b: a note of another issuer's invoice", async () => {
    // another issuer, for which the same certificate may send (a provider's): its invoice is validated
    const own = standIn.registry.issuers.find((i) => i.nit === certs.nit);
    if (!own) throw new Error("the seeded issuer is missing");
    standIn.putIssuer({ ...own, nit: "800197268", authorizedSenders: [certs.nit] });
    const { cufe } = await acceptedInvoice((d) => {
      d.issuer.nit = "800197268";
      d.issuer.check_digit = "4";
    });
    const mine = dianInvoice(2);
    const result = await send((await build(dianDebitNote(mine, cufe))).xml);
    expect(result.errors).toEqual(["Regla: DBG04b, Rechazo: Documento referenciado no pertenece al emisor."]);
  });

  it("DAD06 and DAB27b: a CUDE and a security code made with another PIN, under the debit note's codes", async () => {
    const { invoice, cufe } = await acceptedInvoice();
    const note = dianDebitNote(invoice, cufe);
    note.dian.software.pin = "99999";
    note.document.issuer.software_pin = "99999";
    expect(codes((await send((await build(note)).xml)).errors)).toEqual(["DAB27b", "DAD06"]);
  });
});
