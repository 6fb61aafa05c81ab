/**
 * Each kind of content a real Colombian invoice carries (devkit/demo-kinds.ts: withholdings, INC
 * and a tip to the final consumer, bags per unit with a line discount and a delivery charge, dollars
 * with their rate and an advance, a natural person with a NIT), end to end through the real app and
 * database: an operador writes the draft as a web app does (the INSERTs PostgREST runs, under the
 * member's grants and row level security), transmits it — to the sandbox provider, and in DIAN mode
 * to the DIAN stand-in, which checks signatures, schemas, CUFE and DIAN's rules at the network edge
 * — and gets `transmitida`, a PDF that shows it all (read back by poppler's pdftotext) and an
 * AttachedDocument whose document carries it: valid against UBL 2.1 (xmllint), signed (xmlsec1),
 * its CUFE recomputed here from its own XML, and every amount where Anexo 1.9 puts it, read by XPath
 * (libxml2) and compared with the figures worked by hand in devkit/demo-kinds.ts.
 */
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { CANARY_SOFTWARE_PIN } from "../../devkit/canary.ts";
import { SANDBOX_URL, saveCredential } from "../../devkit/credentials.ts";
import { asRole, createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { DEMO_KINDS, type DemoKind, draftOf } from "../../devkit/demo-kinds.ts";
import { createTestCertificates } from "../../devkit/dian/certificates.ts";
import { createDianNumberingDouble, dianFields, SOFTWARE_ID } from "../../devkit/dian/numbering.ts";
import {
  embeddedDocuments,
  xmllintValidate,
  xmlsecVerify,
  xpathValues,
} from "../../devkit/dian/xml-tools.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";
import { pdftotext } from "../../devkit/pdf/support.ts";
import { createDianStandIn, type DianStandIn } from "../../sandbox/dian/index.ts";
import { HABILITACION_TECHNICAL_KEY } from "../../sandbox/dian/registry.ts";
import { createSandboxProvider } from "../../sandbox/index.ts";
import { sandboxCa } from "../support/attached-document.ts";

type Mode = "sandbox" | "dian";

let db: TestDatabase;
let t: TestApp;
let standIn: DianStandIn;
/** The CA of the DIAN-mode company's certificate, which signs its documents and their containers. */
let companyCaPem: string;
const tenants = {} as Record<Mode, Tenant>;
const sandbox = createSandboxProvider();

beforeAll(async () => {
  db = await createTestDatabase();
  [tenants.sandbox, tenants.dian] = await Promise.all([createTenant(db), createTenant(db)]);
  const certs = createTestCertificates({ nit: tenants.dian.company.nit });
  companyCaPem = certs.caPem;
  standIn = createDianStandIn();
  standIn.trustCa(certs.caPem);
  standIn.putIssuer({
    nit: tenants.dian.company.nit,
    software: [{ id: SOFTWARE_ID, pin: CANARY_SOFTWARE_PIN, ownerNit: tenants.dian.company.nit }],
    ranges: [
      {
        resolutionNumber: "18760000001",
        resolutionDate: "2019-01-19",
        prefix: "SETP",
        from: "990000000",
        to: "995000000",
        validFrom: "2019-01-19",
        validTo: "2030-01-19",
        technicalKey: HABILITACION_TECHNICAL_KEY, // the factories' company's
        softwareId: SOFTWARE_ID,
      },
    ],
  });
  // the network edge: the sandbox provider at its URL, DIAN's web service (the stand-in) elsewhere
  const edge = (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    return request.url.startsWith(SANDBOX_URL) ? sandbox.fetch(request) : standIn.fetch(request);
  };
  t = await createTestApp(db, { dianNumbering: createDianNumberingDouble(), providerFetch: edge });
  await saveCredential(t.deps, tenants.sandbox);
  const saved = await t.post(
    "/integrations/save",
    {
      org_id: tenants.dian.org.id,
      company_id: tenants.dian.company.id,
      service: "adapter-tax",
      environment: "uat",
      ...dianFields(certs),
    },
    await t.token(tenants.dian.admin),
  );
  expect(saved.status, await saved.clone().text()).toBe(200);
}, 180_000);
afterAll(() => db?.close());

/**
 * The draft and its lines, written as PostgREST writes `.from(table).insert(rows)` for the tenant's
 * operador: `insert … select … from json_populate_recordset(…)` as `authenticated` with their claims.
 */
async function writeDraft(tenant: Tenant, kind: DemoKind, number: string): Promise<string> {
  const insert = async (table: string, rows: Record<string, unknown>[]) => {
    const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))].map((c) => `"${c}"`).join(", ");
    return asRole<{ id: string }>(
      db,
      "authenticated",
      tenant.operador.claims,
      `insert into public.${table} (${columns}) select ${columns}
         from json_populate_recordset(null::public.${table}, $1::text::json) returning id`,
      [JSON.stringify(rows)],
    );
  };
  const [invoice] = await insert("invoices", [
    { org_id: tenant.org.id, company_id: tenant.company.id, number, ...draftOf(kind) },
  ]);
  if (!invoice) throw new Error("no invoice written");
  await insert(
    "invoice_lines",
    kind.lines.map((line) => ({ invoice_id: invoice.id, org_id: tenant.org.id, ...line })),
  );
  return invoice.id;
}

async function post(tenant: Tenant, route: string, body: Record<string, unknown>) {
  const response = await t.post(route, { org_id: tenant.org.id, ...body }, await t.token(tenant.operador));
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json();
}

/** What an amount in pesos looks like on the PDF: "$ 2.850.850,00". */
function pesos(amount: string): string {
  const [whole = "0", cents = "00"] = amount.split(".");
  return `$ ${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ".")},${cents}`;
}

/** The CUFE as DIAN recomputes it from the document's own fields (brief §3), the ClTec known here. */
async function recomputedCufe(xml: Uint8Array): Promise<{ cufe: string; uuid: string }> {
  const tax = (code: string) =>
    `string(/inv:Invoice/cac:TaxTotal[cac:TaxSubtotal/cac:TaxCategory/cac:TaxScheme/cbc:ID='${code}']/cbc:TaxAmount)`;
  const [id, date, time, extension, iva, inc, ica, payable, supplier, customer, environment, uuid] =
    await xpathValues(xml, [
      "string(/inv:Invoice/cbc:ID)",
      "string(/inv:Invoice/cbc:IssueDate)",
      "string(/inv:Invoice/cbc:IssueTime)",
      "string(/inv:Invoice/cac:LegalMonetaryTotal/cbc:LineExtensionAmount)",
      tax("01"),
      tax("04"),
      tax("03"),
      "string(/inv:Invoice/cac:LegalMonetaryTotal/cbc:PayableAmount)",
      "string(/inv:Invoice/cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID)",
      "string(/inv:Invoice/cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID)",
      "string(/inv:Invoice/cbc:ProfileExecutionID)",
      "string(/inv:Invoice/cbc:UUID)",
    ]);
  const amount = (value: string | undefined) => (value ? value : "0.00");
  const source = [
    id,
    date,
    time,
    amount(extension),
    "01",
    amount(iva),
    "04",
    amount(inc),
    "03",
    amount(ica),
    amount(payable),
    supplier,
    customer,
    HABILITACION_TECHNICAL_KEY,
    environment,
  ].join("");
  return { cufe: createHash("sha384").update(source).digest("hex"), uuid: uuid ?? "" };
}

const INV = "/inv:Invoice";
const customer = `${INV}/cac:AccountingCustomerParty`;
const taxTotal = (code: string) =>
  `${INV}/cac:TaxTotal[cac:TaxSubtotal/cac:TaxCategory/cac:TaxScheme/cbc:ID='${code}']`;
const withholding = (code: string) =>
  `${INV}/cac:WithholdingTaxTotal[cac:TaxSubtotal/cac:TaxCategory/cac:TaxScheme/cbc:ID='${code}']`;
const total = (field: string) => `string(${INV}/cac:LegalMonetaryTotal/cbc:${field})`;

/** What every kind's document says of its amounts: the hand-worked figures, where Anexo 1.9 puts them. */
function amountPaths(kind: DemoKind): [string, string][] {
  const e = kind.expected;
  return [
    [`string(${INV}/cbc:DocumentCurrencyCode)`, "COP"],
    [`count(${INV}/cac:TaxTotal)`, String(Object.keys(e.taxes).length)],
    // IVA, INC, ICA first; then the others (the keys' order would put "22" before "01")
    [
      `string(${INV}/cac:TaxTotal[1]/cac:TaxSubtotal/cac:TaxCategory/cac:TaxScheme/cbc:ID)`,
      ["01", "04", "03", ...Object.keys(e.taxes)].find((code) => code in e.taxes) ?? "",
    ],
    ...Object.entries(e.taxes).map(([code, amount]): [string, string] => [
      `string(${taxTotal(code)}/cbc:TaxAmount)`,
      amount,
    ]),
    [`count(${INV}/cac:WithholdingTaxTotal)`, String(Object.keys(e.withholdings).length)],
    ...Object.entries(e.withholdings).map(([code, amount]): [string, string] => [
      `string(${withholding(code)}/cbc:TaxAmount)`,
      amount,
    ]),
    [total("LineExtensionAmount"), e.subtotal],
    [total("TaxExclusiveAmount"), e.tax_exclusive],
    [total("TaxInclusiveAmount"), e.tax_inclusive],
    [total("AllowanceTotalAmount"), e.allowances === "0.00" ? "" : e.allowances],
    [total("ChargeTotalAmount"), e.charges === "0.00" ? "" : e.charges],
    [total("PrepaidAmount"), e.prepaid === "0.00" ? "" : e.prepaid],
    // PayableAmount subtracts neither the advances nor the withholdings (FAU14)
    [total("PayableAmount"), e.payable],
    [`string(${INV}/cac:PaymentMeans/cbc:ID)`, kind.invoice.payment_form ?? "1"],
    [`string(${INV}/cac:PaymentMeans/cbc:PaymentMeansCode)`, kind.invoice.payment_method ?? "10"],
    [`boolean(${INV}/cac:PaymentMeans/cbc:PaymentDueDate)`, String(kind.invoice.payment_form === "2")],
  ];
}

/** The parts of each kind that only it has, worked by hand from its inputs. */
const KIND_PATHS: Record<DemoKind["key"], [string, string][]> = {
  servicios: [
    [`string(${withholding("06")}/cac:TaxSubtotal/cbc:TaxableAmount)`, "2500000.00"],
    [`string(${withholding("06")}/cac:TaxSubtotal/cac:TaxCategory/cbc:Percent)`, "4.00"],
    [`string(${withholding("06")}/cac:TaxSubtotal/cac:TaxCategory/cac:TaxScheme/cbc:Name)`, "ReteFuente"],
    [`string(${withholding("07")}/cac:TaxSubtotal/cbc:TaxableAmount)`, "2500000.00"],
    [`string(${withholding("07")}/cac:TaxSubtotal/cac:TaxCategory/cbc:Percent)`, "0.966"],
    [`string(${customer}/cbc:AdditionalAccountID)`, "1"],
    [`string(${customer}/cac:Party/cac:PartyTaxScheme/cbc:TaxLevelCode)`, "O-13;O-15"],
    [`string(${customer}/cac:Party/cac:PartyTaxScheme/cac:TaxScheme/cbc:ID)`, "01"],
    [`string(${customer}/cac:Party/cac:PartyTaxScheme/cbc:CompanyID/@schemeID)`, "4"],
    [`string(${customer}/cac:Party/cac:PhysicalLocation/cac:Address/cbc:ID)`, "05001"],
    [`string(${customer}/cac:Party/cac:PhysicalLocation/cac:Address/cbc:CountrySubentityCode)`, "05"],
    [`string(${customer}/cac:Party/cac:PartyTaxScheme/cac:RegistrationAddress/cbc:PostalZone)`, "050021"],
  ],
  restaurante: [
    [`string(${taxTotal("04")}/cac:TaxSubtotal/cbc:TaxableAmount)`, "62000.00"],
    [`string(${taxTotal("04")}/cac:TaxSubtotal/cac:TaxCategory/cbc:Percent)`, "8.00"],
    [`count(${INV}/cac:AllowanceCharge)`, "1"],
    [`string(${INV}/cac:AllowanceCharge/cbc:ID)`, "1"],
    [`string(${INV}/cac:AllowanceCharge/cbc:ChargeIndicator)`, "true"],
    [`count(${INV}/cac:AllowanceCharge/cbc:AllowanceChargeReasonCode)`, "0"],
    [`string(${INV}/cac:AllowanceCharge/cbc:AllowanceChargeReason)`, "Propina voluntaria"],
    [`string(${INV}/cac:AllowanceCharge/cbc:MultiplierFactorNumeric)`, "10.00"],
    [`string(${INV}/cac:AllowanceCharge/cbc:Amount)`, "6200.00"],
    [`string(${INV}/cac:AllowanceCharge/cbc:BaseAmount)`, "62000.00"],
    // DIAN's final consumer, as Odoo writes it: identified, no address, no legal entity, no contact
    [`string(${customer}/cbc:AdditionalAccountID)`, "2"],
    [`string(${customer}/cac:Party/cac:PartyIdentification/cbc:ID)`, "222222222222"],
    [`string(${customer}/cac:Party/cac:PartyIdentification/cbc:ID/@schemeName)`, "13"],
    [`string(${customer}/cac:Party/cac:PartyTaxScheme/cbc:TaxLevelCode)`, "R-99-PN"],
    [`string(${customer}/cac:Party/cac:PartyTaxScheme/cac:TaxScheme/cbc:ID)`, "ZZ"],
    [`string(${customer}/cac:Party/cac:PartyTaxScheme/cac:TaxScheme/cbc:Name)`, "No aplica"],
    [`count(${customer}/cac:Party/cac:PhysicalLocation)`, "0"],
    [`count(${customer}/cac:Party/cac:PartyTaxScheme/cac:RegistrationAddress)`, "0"],
    [`count(${customer}/cac:Party/cac:PartyLegalEntity)`, "0"],
    [`count(${customer}/cac:Party/cac:Contact)`, "0"],
  ],
  bolsas: [
    // IVA of both lines (17 100 + 38 on 90 000 + 200); bags per unit: no base, no percent
    [`string(${taxTotal("01")}/cac:TaxSubtotal/cbc:TaxableAmount)`, "90200.00"],
    [`count(${taxTotal("22")}/cac:TaxSubtotal/cbc:TaxableAmount)`, "0"],
    [`count(${taxTotal("22")}/cac:TaxSubtotal/cac:TaxCategory/cbc:Percent)`, "0"],
    [`string(${taxTotal("22")}/cac:TaxSubtotal/cbc:BaseUnitMeasure)`, "2"],
    [`string(${taxTotal("22")}/cac:TaxSubtotal/cbc:BaseUnitMeasure/@unitCode)`, "NIU"],
    [`string(${taxTotal("22")}/cac:TaxSubtotal/cbc:PerUnitAmount)`, "70.00"],
    // the line discount: 10 % of 100 000, numbered, reason code 00 (no condicionado)
    [`string(${INV}/cac:InvoiceLine[1]/cbc:LineExtensionAmount)`, "90000.00"],
    [`string(${INV}/cac:InvoiceLine[1]/cac:AllowanceCharge/cbc:ID)`, "1"],
    [`string(${INV}/cac:InvoiceLine[1]/cac:AllowanceCharge/cbc:ChargeIndicator)`, "false"],
    [`string(${INV}/cac:InvoiceLine[1]/cac:AllowanceCharge/cbc:AllowanceChargeReasonCode)`, "00"],
    [`string(${INV}/cac:InvoiceLine[1]/cac:AllowanceCharge/cbc:MultiplierFactorNumeric)`, "10.00"],
    [`string(${INV}/cac:InvoiceLine[1]/cac:AllowanceCharge/cbc:Amount)`, "10000.00"],
    [`string(${INV}/cac:InvoiceLine[1]/cac:AllowanceCharge/cbc:BaseAmount)`, "100000.00"],
    [`string(${INV}/cac:InvoiceLine[1]/cac:TaxTotal/cac:TaxSubtotal/cbc:TaxableAmount)`, "90000.00"],
    [`string(${INV}/cac:InvoiceLine[1]/cac:TaxTotal/cbc:TaxAmount)`, "17100.00"],
    // the bags' line: one TaxTotal per tax (FAX01)
    [`count(${INV}/cac:InvoiceLine[2]/cac:TaxTotal)`, "2"],
    [`string(${INV}/cac:InvoiceLine[2]/cac:TaxTotal[2]/cbc:TaxAmount)`, "140.00"],
    // the delivery charge: an amount, so no MultiplierFactorNumeric, on the document's 90 200
    [`string(${INV}/cac:AllowanceCharge/cbc:ChargeIndicator)`, "true"],
    [`count(${INV}/cac:AllowanceCharge/cbc:MultiplierFactorNumeric)`, "0"],
    [`string(${INV}/cac:AllowanceCharge/cbc:Amount)`, "5000.00"],
    [`string(${INV}/cac:AllowanceCharge/cbc:BaseAmount)`, "90200.00"],
    [`string(${customer}/cbc:AdditionalAccountID)`, "2"],
  ],
  exportacion: [
    [`string(${INV}/cac:PaymentExchangeRate/cbc:SourceCurrencyCode)`, "COP"],
    [`string(${INV}/cac:PaymentExchangeRate/cbc:SourceCurrencyBaseRate)`, "3919.109578"],
    [`string(${INV}/cac:PaymentExchangeRate/cbc:TargetCurrencyCode)`, "USD"],
    [`string(${INV}/cac:PaymentExchangeRate/cbc:TargetCurrencyBaseRate)`, "1.00"],
    [`string(${INV}/cac:PaymentExchangeRate/cbc:CalculationRate)`, "3919.109578"],
    [`string(${INV}/cac:PaymentExchangeRate/cbc:Date)`, "2026-11-20"],
    [`string(${INV}/cac:PrepaidPayment/cbc:ID)`, "Anticipo 1"],
    [`string(${INV}/cac:PrepaidPayment/cbc:PaidAmount)`, "391910.96"],
    [`string(${INV}/cac:PrepaidPayment/cbc:ReceivedDate)`, "2026-11-01"],
    [`string(${INV}/cac:InvoiceLine/cac:Price/cbc:PriceAmount)`, "889559.492014"],
    [`string(${INV}/cac:InvoiceLine/cac:Price/cbc:PriceAmount/@currencyID)`, "COP"],
    [`string(${customer}/cac:Party/cac:PartyIdentification/cbc:ID/@schemeName)`, "50"],
    [
      `string(${customer}/cac:Party/cac:PhysicalLocation/cac:Address/cac:Country/cbc:IdentificationCode)`,
      "US",
    ],
    [`string(${customer}/cac:Party/cac:PhysicalLocation/cac:Address/cac:Country/cbc:Name)`, "Estados Unidos"],
    [`count(${customer}/cac:Party/cac:PhysicalLocation/cac:Address/cbc:ID)`, "0"],
  ],
  "persona-natural": [
    // a natural person, though identified by a NIT
    [`string(${customer}/cbc:AdditionalAccountID)`, "2"],
    [`string(${customer}/cac:Party/cac:PartyIdentification/cbc:ID)`, "1018419008"],
    [`string(${customer}/cac:Party/cac:PartyIdentification/cbc:ID/@schemeID)`, "5"],
    [`string(${customer}/cac:Party/cac:PartyTaxScheme/cbc:CompanyID/@schemeName)`, "31"],
    [`string(${customer}/cac:Party/cac:PartyTaxScheme/cbc:TaxLevelCode)`, "R-99-PN"],
    [`string(${customer}/cac:Party/cac:PartyTaxScheme/cac:TaxScheme/cbc:ID)`, "ZZ"],
  ],
};

/** What each kind's PDF must print, as pdftotext reads it. */
function pdfShows(kind: DemoKind): string[] {
  const e = kind.expected;
  const net = e.net !== e.payable;
  const common = [net ? "NETO A PAGAR" : "TOTAL A PAGAR", pesos(net ? e.net : e.payable), pesos(e.subtotal)];
  const byKind: Record<DemoKind["key"], string[]> = {
    servicios: [
      "ReteFuente",
      "4 %",
      pesos("100000.00"),
      "ReteICA",
      "0,966 %",
      pesos("24150.00"),
      "Total factura",
      pesos(e.payable),
      "Crédito",
      "Consignación bancaria",
      "O-13 Gran contribuyente; O-15 Autorretenedor",
      "Régimen: 01 IVA",
    ],
    restaurante: [
      "INC",
      "8 %",
      pesos("4960.00"),
      "Cargo: Propina voluntaria",
      pesos("6200.00"),
      "R-99-PN No responsable",
      "Régimen: ZZ No aplica",
    ],
    bolsas: [
      "INC bolsas",
      // the totals' label whole, not cut ("Impuesto al consumo de bols…")
      "INC bolsas plásticas",
      "$ 70,00 por Unidad",
      pesos("140.00"),
      "Descuento 10 % (Descuento cliente frecuente): -$ 10.000,00",
      "Cargo: Domicilio",
      pesos("5000.00"),
      pesos("17138.00"),
    ],
    exportacion: [
      "COP (negociada en USD)",
      "3.919,109578 COP por USD (20/11/2026)",
      "Total en USD",
      "US$ 270,11",
      "Anticipos recibidos",
      "-$ 391.910,96",
      "Neto en USD",
      "US$ 170,11",
    ],
    "persona-natural": ["Persona natural", "NIT 1.018.419.008-5", "Tarjeta débito"],
  };
  return [...common, ...byKind[kind.key]];
}

let consecutive = 990_100_000 + Math.floor(Math.random() * 1_000_000);

const cases = DEMO_KINDS.flatMap((kind) =>
  (["sandbox", "dian"] as const).map((mode) => [kind.key, mode, kind] as const),
);

describe.each(cases)("an invoice of kind %s, in %s mode", (_key, mode, kind) => {
  it("is written by an operador, transmitted, and comes back transmitida with a PDF and an AttachedDocument that carry it all", async () => {
    const tenant = tenants[mode];
    const id = await writeDraft(tenant, kind, `SETP${consecutive++}`);
    const { results } = await post(tenant, "/transmit", { invoice_ids: [id] });
    expect(results[0], results[0]?.message).toMatchObject({ status: "transmitida", code: "accepted" });

    const representation = await post(tenant, "/representation", { invoice_id: id });
    expect(representation).toMatchObject({ stamped: true, xml_path: expect.stringMatching(/\.xml$/) });
    const pdf = await readFile(t.documents.file(representation.path));
    if (process.env.KEEP_PDF) await writeFile(`/tmp/kind-${kind.key}-${mode}.pdf`, pdf);
    // spaces as pdftotext guesses them from the glyphs' positions ("4 %" in a narrow cell reads "4%")
    const text = pdftotext(pdf).replace(/\s+/g, "");
    for (const shown of pdfShows(kind)) {
      expect(text, `the PDF shows ${shown}`).toContain(shown.replace(/\s+/g, ""));
    }

    const attached = new Uint8Array(await readFile(t.documents.file(representation.xml_path)));
    const ca = mode === "dian" ? companyCaPem : await sandboxCa(sandbox.fetch);
    for (const [what, check] of [
      ["the container's signature", xmlsecVerify(attached, ca)],
      ["the container's schema", xmllintValidate(attached, "attached_document")],
    ] as const) {
      const result = await check;
      expect(result.ok, `${what}: ${result.output}`).toBe(true);
    }
    const { document } = await embeddedDocuments(attached);
    const schema = await xmllintValidate(document, "invoice");
    expect(schema.ok, schema.output).toBe(true);
    const signature = await xmlsecVerify(document, ca);
    expect(signature.ok, signature.output).toBe(true);
    const { cufe, uuid } = await recomputedCufe(document);
    expect(uuid).toBe(cufe);
    const paths = [...amountPaths(kind), ...KIND_PATHS[kind.key]];
    const values = await xpathValues(
      document,
      paths.map(([path]) => path),
    );
    expect(Object.fromEntries(paths.map(([path], i) => [path, values[i]]))).toEqual(
      Object.fromEntries(paths),
    );
  }, 120_000);
});
