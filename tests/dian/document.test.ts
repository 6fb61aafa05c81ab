/**
 * The signed DIAN document: valid against the OASIS UBL 2.1 schemas and DIAN's extension schema
 * (xmllint), signed so xmlsec1 verifies it, and carrying DIAN's own golden values — the Anexo's
 * CUFE example, DIAN's NIT check digits, a SoftwareSecurityCode and a CUDE DIAN accepted.
 */
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestCertificates, type TestCertificates } from "../../devkit/dian/certificates.ts";
import {
  dianCreditNote,
  dianInvoice,
  signedAtIssue,
  TEST_RESOLUTION,
  TEST_SOFTWARE,
  withAmounts,
} from "../../devkit/dian/documents.ts";
import { xmllintValidate, xmlsecVerify } from "../../devkit/dian/xml-tools.ts";
import { computeCude } from "../../shared/co/cufe.ts";
import { openPkcs12, type Signer } from "../../shared/providers/dian/certificate.ts";
import { buildSignedDocument } from "../../shared/providers/dian/document.ts";
import { softwareSecurityCode } from "../../shared/providers/dian/extensions.ts";
import type { DianDocumentInput } from "../../shared/providers/dian/input.ts";

let certs: TestCertificates;
let signer: Signer;

beforeAll(async () => {
  certs = createTestCertificates();
  signer = await openPkcs12(certs.p12, certs.password);
}, 60_000);

async function build(input: DianDocumentInput, options = signedAtIssue(input)) {
  const signed = await buildSignedDocument(input, signer, options);
  return { ...signed, text: new TextDecoder().decode(signed.xml) };
}

const content = (xml: string, name: string) =>
  new RegExp(`<${name}(?: [^>]*)?>([^<]*)</${name}>`).exec(xml)?.[1];
const contents = (xml: string, name: string) =>
  [...xml.matchAll(new RegExp(`<${name}(?: [^>]*)?>([^<]*)</${name}>`, "g"))].map((m) => m[1]);
const element = (xml: string, name: string) =>
  new RegExp(`<${name}[ >][\\s\\S]*?</${name}>`).exec(xml)?.[0] ?? "";
const startTag = (xml: string, name: string) => new RegExp(`<${name}(?: [^>]*)?>`).exec(xml)?.[0] ?? "";

describe("valid and verified", () => {
  it("a 20-line invoice validates against UBL 2.1 and DIAN's schema, and its signature verifies", async () => {
    const { xml, text } = await build(dianInvoice(20));
    const schema = await xmllintValidate(xml, "invoice");
    expect(schema.output).toContain("validates");
    expect(schema.ok).toBe(true);
    expect((await xmlsecVerify(xml, certs.caPem)).ok).toBe(true);
    expect(contents(text, "cbc:ID").length).toBeGreaterThan(20);
    expect(content(text, "cbc:LineCountNumeric")).toBe("20");
  });

  it.each([
    ["partial", true],
    ["whole", false],
  ])("a %s credit note validates and verifies", async (_name, partial) => {
    const invoice = dianInvoice(4);
    const { authorityCode } = await build(invoice);
    const { xml } = await build(dianCreditNote(invoice, authorityCode, partial));
    expect((await xmllintValidate(xml, "credit_note")).ok).toBe(true);
    expect((await xmlsecVerify(xml, certs.caPem)).ok).toBe(true);
  });

  it("the schema check fails on a document UBL does not allow, and on a broken DIAN extension", async () => {
    const { text } = await build(dianInvoice(1));
    const misplaced = text.replace(/(<cbc:ProfileID>)/, "<cbc:Note>x</cbc:Note>$1");
    expect((await xmllintValidate(new TextEncoder().encode(misplaced), "invoice")).ok).toBe(false);
    const noQr = text.replace(/<sts:QRCode>[^<]*<\/sts:QRCode>/, "");
    expect((await xmllintValidate(new TextEncoder().encode(noQr), "invoice")).output).toMatch(/QRCode/);
  });
});

describe("an invoice, as Anexo 1.9 asks", () => {
  it("reproduces the Anexo's worked CUFE from the Anexo's own values", async () => {
    const input = dianInvoice(1, (doc) => {
      Object.assign(doc, {
        environment: "prd",
        number: "323200000129",
        issue_date: "2019-01-16",
        issue_time: "10:53:10-05:00",
      });
      Object.assign(doc.issuer, {
        nit: "700085371",
        check_digit: "1",
        technical_key: "693ff6f2a553c3646a063436fd4dd9ded0311471",
      });
      Object.assign(doc.buyer, { id_number: "800199436", check_digit: undefined });
      doc.due_date = undefined;
      doc.payment_form = "1";
      Object.assign(
        doc,
        withAmounts({
          lines: [
            {
              position: 1,
              description: "Servicio",
              quantity: "1",
              unit_price: "1500000.00",
              line_extension: "1500000.00",
              taxes: [
                {
                  code: "01",
                  name: "IVA",
                  percent: "19.00",
                  taxable_amount: "1500000.00",
                  tax_amount: "285000.00",
                },
              ],
              tax_amount: "285000.00",
            },
          ],
        }),
      );
    });
    input.dian.resolution = {
      ...TEST_RESOLUTION,
      prefix: "",
      from: "1",
      to: "999999999999",
      start_date: "2019-01-01",
    };
    const { text, authorityCode } = await build(input);
    const anexo =
      "8bb918b19ba22a694f1da11c643b5e9de39adf60311cf179179e9b33381030bcd4c3c3f156c506ed5908f9276f5bd9b4";
    expect(authorityCode).toBe(anexo);
    expect(startTag(text, "cbc:UUID")).toBe('<cbc:UUID schemeID="1" schemeName="CUFE-SHA384">');
    expect(content(text, "cbc:UUID")).toBe(anexo);
    expect(content(text, "cbc:ProfileExecutionID")).toBe("1");
    expect(content(text, "sts:QRCode")).toBe(
      `https://catalogo-vpfe.dian.gov.co/document/searchqr?documentkey=${anexo}`,
    );
  });

  it("writes NITs with DIAN's check digits: DIAN's 800197268-4, and a buyer's computed when not given", async () => {
    const { text } = await build(
      dianInvoice(1, (doc) => {
        Object.assign(doc.issuer, { nit: "1018419008", check_digit: "5" });
        Object.assign(doc.buyer, { id_type: "31", id_number: "800197268", check_digit: undefined });
      }),
    );
    expect(element(text, "sts:AuthorizationProvider")).toContain('schemeID="4" schemeName="31">800197268<');
    expect(element(text, "sts:SoftwareProvider")).toContain('schemeID="5" schemeName="31">1018419008<');
    const supplier = element(text, "cac:AccountingSupplierParty");
    expect(supplier.match(/schemeID="5" schemeName="31">1018419008</g)).toHaveLength(2);
    const customer = element(text, "cac:AccountingCustomerParty");
    expect(content(customer, "cbc:AdditionalAccountID")).toBe("1");
    expect(customer).toContain('<cbc:ID schemeID="4" schemeName="31">800197268</cbc:ID>');
    expect(customer.match(/schemeID="4" schemeName="31">800197268</g)).toHaveLength(3);
  });

  it("identifies a person by cédula without a check digit, as a natural person", async () => {
    const { text } = await build(
      dianInvoice(1, (doc) => {
        doc.buyer = {
          id_type: "13",
          id_number: "222222222222",
          name: "Consumidor final",
          person_type: "2",
          fiscal_responsibilities: ["R-99-PN"],
          tax_scheme: "ZZ",
          country_code: "CO",
        };
      }),
    );
    const customer = element(text, "cac:AccountingCustomerParty");
    expect(content(customer, "cbc:AdditionalAccountID")).toBe("2");
    expect(customer).toContain('<cbc:ID schemeName="13">222222222222</cbc:ID>');
    expect(customer).not.toContain("schemeID=");
    expect(customer).not.toContain("cac:PhysicalLocation");
  });

  it("carries the numbering resolution, the software and its security code", async () => {
    const input = dianInvoice(2);
    const { text } = await build(input);
    const control = element(text, "sts:InvoiceControl");
    expect(content(control, "sts:InvoiceAuthorization")).toBe("18760000001");
    expect([content(control, "cbc:StartDate"), content(control, "cbc:EndDate")]).toEqual([
      "2019-01-19",
      "2030-01-19",
    ]);
    expect([
      content(control, "sts:Prefix"),
      content(control, "sts:From"),
      content(control, "sts:To"),
    ]).toEqual(["SETP", "990000000", "995000000"]);
    expect(content(text, "sts:SoftwareID")).toBe(TEST_SOFTWARE.id);
    const expected = createHash("sha384")
      .update(`${TEST_SOFTWARE.id}${TEST_SOFTWARE.pin}${input.document.number}`)
      .digest("hex");
    expect(content(text, "sts:SoftwareSecurityCode")).toBe(expected);
    expect(text).not.toContain(`>${TEST_SOFTWARE.pin}<`);
    expect(content(element(text, "cac:PartyLegalEntity"), "cbc:ID")).toBe("SETP");
  });

  it("the SoftwareSecurityCode is DIAN's: Odoo's accepted invoice's, recomputed", async () => {
    await expect(softwareSecurityCode("Odoo", "12345", "SETP/2024/00001")).resolves.toBe(
      "ef6c3ad4781873a0a5effcbd7651dc1d26c41822b54ecafe19413bf490ca233683c53953565f70ea025f234eb62675c8",
    );
  });

  it("totals taxes by scheme and rate; TaxExclusiveAmount is the taxed bases only", async () => {
    // lines: 19 % IVA, 5 % IVA, 8 % INC, excluded, 19 % IVA; bases 10000×1, 11250×2, 12500×3, 13750×1, 15000×2
    const { text } = await build(dianInvoice(5));
    const totals = [
      ...text.matchAll(
        /<cac:TaxTotal>(?:(?!<cac:TaxTotal>)[\s\S])*?<\/cac:TaxTotal>(?=<cac:(?:TaxTotal|LegalMonetaryTotal)>)/g,
      ),
    ].map((m) => m[0]);
    expect(totals).toHaveLength(2);
    const [iva = "", inc = ""] = totals;
    // one IVA TaxTotal, one subtotal per rate: 19 % of 10000 + 30000 = 7600; 5 % of 22500 = 1125
    expect(contents(iva, "cbc:Percent")).toEqual(["19.00", "5.00"]);
    expect(contents(iva, "cbc:TaxableAmount")).toEqual(["40000.00", "22500.00"]);
    expect(contents(iva, "cbc:TaxAmount")).toEqual(["8725.00", "7600.00", "1125.00"]);
    expect(contents(inc, "cbc:ID")).toEqual(["04"]);
    expect(contents(inc, "cbc:TaxAmount")).toEqual(["3000.00", "3000.00"]);
    const monetary = element(text, "cac:LegalMonetaryTotal");
    // 10000 + 22500 + 37500 + 13750 + 30000 = 113750; the excluded 13750 is no taxable base
    expect(content(monetary, "cbc:LineExtensionAmount")).toBe("113750.00");
    expect(content(monetary, "cbc:TaxExclusiveAmount")).toBe("100000.00");
    expect(content(monetary, "cbc:TaxInclusiveAmount")).toBe("125475.00");
    expect(content(monetary, "cbc:PayableAmount")).toBe("125475.00");
    expect(startTag(monetary, "cbc:PayableAmount")).toBe('<cbc:PayableAmount currencyID="COP">');
    const untaxed = element(text.slice(text.indexOf("<cac:InvoiceLine><cbc:ID>4<")), "cac:InvoiceLine");
    expect(untaxed).not.toContain("cac:TaxTotal");
  });

  it("writes the description's special characters escaped and drops what XML cannot carry", async () => {
    const { text } = await build(
      dianInvoice(1, (doc) => {
        if (doc.lines[0]) doc.lines[0].description = 'Tornillo 1/2" <acero> & arandela\u0007';
      }),
    );
    expect(content(text, "cbc:Description")).toBe('Tornillo 1/2" &lt;acero&gt; &amp; arandela');
  });

  it("is signed at the instant it is given, never at its issue time; the same instant gives the same bytes", async () => {
    const input = dianInvoice(3); // issued 2026-11-20 at 10:30:00-05:00
    const at = { signingTime: "2026-11-20T10:31:07.250-05:00" };
    const [first, second] = [await build(input, at), await build(input, at)];
    expect(second.text).toBe(first.text);
    expect(content(first.text, "xades:SigningTime")).toBe("2026-11-20T10:31:07.250-05:00");
    expect(content(first.text, "cbc:IssueTime")).toBe("10:30:00-05:00");
    // a resend after an unknown outcome, signed later that day: the same document and CUFE, a new signature
    const later = await build(input, { signingTime: "2026-11-20T18:02:00.000-05:00" });
    expect(content(later.text, "xades:SigningTime")).toBe("2026-11-20T18:02:00.000-05:00");
    expect(later.authorityCode).toBe(first.authorityCode);
    const unsigned = (text: string) => text.replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, "");
    expect(unsigned(later.text)).toBe(unsigned(first.text));
  });
});

describe("a credit note, as Anexo 1.9 asks", () => {
  it("names the invoice it corrects, the concept, the credited quantity, and carries its CUDE", async () => {
    const invoice = dianInvoice(3);
    const { authorityCode: cufe } = await build(invoice);
    const input = dianCreditNote(invoice, cufe, true);
    const { text, authorityCode } = await build(input);
    const note = input.document;
    expect(text.startsWith('<?xml version="1.0" encoding="UTF-8" standalone="no"?><CreditNote ')).toBe(true);
    expect(startTag(text, "CreditNote")).toContain(
      'xmlns:sts="http://www.dian.gov.co/contratos/facturaelectronica/v1/Structures"',
    );
    expect(content(text, "cbc:CustomizationID")).toBe("20");
    expect(content(text, "cbc:CreditNoteTypeCode")).toBe("91");
    expect(startTag(text, "cbc:UUID")).toBe('<cbc:UUID schemeID="2" schemeName="CUDE-SHA384">');
    const discrepancy = element(text, "cac:DiscrepancyResponse");
    expect([content(discrepancy, "cbc:ReferenceID"), content(discrepancy, "cbc:ResponseCode")]).toEqual([
      invoice.document.number,
      "1",
    ]);
    const reference = element(text, "cac:InvoiceDocumentReference");
    expect(reference).toBe(
      `<cac:InvoiceDocumentReference><cbc:ID>${invoice.document.number}</cbc:ID><cbc:UUID schemeName="CUFE-SHA384">${cufe}</cbc:UUID><cbc:IssueDate>2026-11-20</cbc:IssueDate></cac:InvoiceDocumentReference>`,
    );
    expect(startTag(text, "cbc:CreditedQuantity")).toBe('<cbc:CreditedQuantity unitCode="94">');
    expect(contents(text, "cbc:CreditedQuantity")).toEqual(["1"]);
    expect(text).not.toContain("sts:InvoiceControl");
    const iva = note.lines
      .flatMap((l) => l.taxes.filter((t) => t.code === "01"))
      .reduce((s, t) => s + Number(t.tax_amount), 0);
    expect(authorityCode).toBe(
      await computeCude({
        number: note.number,
        issueDate: note.issue_date,
        issueTime: note.issue_time,
        subtotal: note.totals.subtotal,
        iva: iva.toFixed(2),
        inc: "0.00",
        ica: "0.00",
        total: note.totals.total,
        issuerNit: note.issuer.nit,
        buyerId: note.buyer.id_number,
        softwarePin: TEST_SOFTWARE.pin,
        environment: "uat",
      }),
    );
  });

  it("the CUDE formula is DIAN's: Odoo's accepted credit note's, recomputed with the software PIN", async () => {
    await expect(
      computeCude({
        number: "RSETP/2024/00001",
        issueDate: "2024-01-29",
        issueTime: "19:00:00-05:00",
        subtotal: "3919109.58",
        iva: "195955.48",
        inc: "0.00",
        ica: "0.00",
        total: "4115065.06",
        issuerNit: "1018419008",
        buyerId: "90010828",
        softwarePin: "12345",
        environment: "uat",
      }),
    ).resolves.toBe(
      "c6f6ea5e056afc233b9c01ee6d6f86fad861bbc59cf774a43657aec2681016d295f3b283912d5a934f9960072f8b14c6",
    );
  });
});

describe("what cannot be built", () => {
  const refused = async (input: DianDocumentInput, message: RegExp) =>
    expect(buildSignedDocument(input, signer, signedAtIssue(input))).rejects.toThrow(message);

  it("an invoice without its resolution, outside its range, prefix or period", async () => {
    const input = dianInvoice(1);
    await refused({ ...input, dian: { software: input.dian.software } }, /needs its numbering resolution/);
    await refused(
      dianInvoice(1, (d) => Object.assign(d, { number: "SETP995000001" })),
      /outside the resolution's range/,
    );
    await refused(
      dianInvoice(1, (d) => Object.assign(d, { number: "FE990000001" })),
      /does not carry the resolution's prefix "SETP"/,
    );
    await refused(
      dianInvoice(1, (d) => Object.assign(d, { issue_date: "2030-01-20" })),
      /outside the resolution's period/,
    );
  });

  it("a credit note with a numbering resolution", async () => {
    const invoice = dianInvoice(1);
    const note = dianCreditNote(invoice, "a".repeat(96));
    await refused(
      { ...note, dian: { ...note.dian, resolution: invoice.dian.resolution } },
      /carries no numbering resolution/,
    );
  });
});
