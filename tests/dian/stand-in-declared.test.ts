/**
 * The stand-in checks what a document declares against DIAN's lists and rules, from the XML alone
 * (sandbox/dian/rules-content.ts): the parties (responsibilities, identification and person types,
 * a natural person's identification, the issuer in Colombia, DIVIPOLA), the payment, the discounts'
 * reason codes, the dates, the currency and the exchange rate. Each rule is shown failing on a
 * devkit document broken by hand for it (edited, its CUFE recomputed, re-signed) with DIAN's rule id
 * and nothing else; documents that bend without breaking (a foreign buyer, the final consumer, USD)
 * are accepted.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { dianInvoice } from "../../devkit/dian/documents.ts";
import type { DianStandIn } from "../../sandbox/dian/index.ts";
import { openPkcs12, type Signer } from "../../shared/providers/dian/certificate.ts";
import type { DianDocumentInput } from "../../shared/providers/dian/input.ts";
import {
  createTestCertificates,
  errorMessages,
  FIXTURES_TODAY,
  field,
  post,
  type Sender,
  seededStandIn,
  senderOf,
  soapRequest,
  zipBase64,
} from "../support/dian-stand-in.ts";
import { type ContentSpec, replaceContent } from "../support/ubl-content.ts";
import { find, remove, setText, signEdited, unsigned, type XmlElement } from "../support/ubl-edit.ts";

let sender: Sender;
let signer: Signer;
let standIn: DianStandIn;

beforeAll(async () => {
  const certs = createTestCertificates();
  sender = senderOf(certs);
  signer = await openPkcs12(certs.p12, certs.password);
  standIn = seededStandIn(certs);
  await standIn.dianCaPem();
}, 120_000);

async function sendWith(
  edit: (root: XmlElement) => void,
  input: DianDocumentInput = dianInvoice(2),
  spec?: ContentSpec,
) {
  const doc = await unsigned(input);
  if (spec) replaceContent(doc, spec);
  edit(doc.root);
  const envelope = await soapRequest(sender, "SendBillSync", {
    fileName: "invoice.zip",
    contentFile: zipBase64({ "invoice.xml": await signEdited(doc, input, signer) }),
  });
  const answer = await (await post(standIn, envelope, "SendBillSync")).text();
  const errors = errorMessages(answer);
  return {
    code: field(answer, "StatusCode"),
    errors,
    rules: errors.map((e) => /^Regla: (\w+),/.exec(e)?.[1]),
  };
}

const SUPPLIER = "cac:AccountingSupplierParty";
const CUSTOMER = "cac:AccountingCustomerParty";
const SCHEME = "cac:Party/cac:PartyTaxScheme";
const PHYSICAL = "cac:Party/cac:PhysicalLocation/cac:Address";
const REGISTRATION = `${SCHEME}/cac:RegistrationAddress`;

describe("the parties", () => {
  it("rejects an issuer responsibility off DIAN's list, with DIAN's own words: FAJ26", async () => {
    const result = await sendWith((root) =>
      setText(root, `${SUPPLIER}/${SCHEME}/cbc:TaxLevelCode`, "O-13;O-48"),
    );
    expect(result.errors).toEqual([
      "Regla: FAJ26, Rechazo: Responsabilidad informada por emisor no valida según lista.",
    ]);
  });

  it("rejects a buyer responsibility off the list, and a final consumer that is not R-99-PN: FAK26", async () => {
    const off = await sendWith((root) => setText(root, `${CUSTOMER}/${SCHEME}/cbc:TaxLevelCode`, "O-05"));
    expect(off.errors).toEqual([
      "Regla: FAK26, Rechazo: Responsabilidad informada para receptor no valida según lista.",
    ]);
    const finalConsumer = (levels: string) => (root: XmlElement) => {
      for (const path of [`${SCHEME}/cbc:CompanyID`, "cac:Party/cac:PartyIdentification/cbc:ID"]) {
        const id = find(find(root, CUSTOMER), path);
        id.children = ["222222222222"];
        id.attributes = { ...id.attributes, schemeName: "13" };
        delete id.attributes.schemeID;
      }
      setText(root, `${CUSTOMER}/cbc:AdditionalAccountID`, "2");
      setText(root, `${CUSTOMER}/${SCHEME}/cbc:TaxLevelCode`, levels);
    };
    expect((await sendWith(finalConsumer("O-13"))).rules).toEqual(["FAK26"]);
    expect((await sendWith(finalConsumer("R-99-PN"))).code).toBe("00");
  });

  it("rejects an identification type off DIAN's list: FAJ25 (issuer), FAK25 (buyer)", async () => {
    const type = (party: string) => (root: XmlElement) => {
      const id = find(root, `${party}/${SCHEME}/cbc:CompanyID`);
      id.attributes = { ...id.attributes, schemeName: "99" };
    };
    expect((await sendWith(type(SUPPLIER))).rules).toEqual(["FAJ25"]);
    expect((await sendWith(type(CUSTOMER))).rules).toEqual(["FAK25"]);
  });

  it("rejects a person type other than 1 or 2: FAJ02, FAK02", async () => {
    expect(
      (await sendWith((root) => setText(root, `${SUPPLIER}/cbc:AdditionalAccountID`, "3"))).rules,
    ).toEqual(["FAJ02"]);
    expect(
      (await sendWith((root) => setText(root, `${CUSTOMER}/cbc:AdditionalAccountID`, "0"))).rules,
    ).toEqual(["FAK02"]);
  });

  it("rejects a natural person without PartyIdentification: FAK61", async () => {
    const natural = (root: XmlElement) => setText(root, `${CUSTOMER}/cbc:AdditionalAccountID`, "2");
    expect((await sendWith(natural)).code).toBe("00");
    const result = await sendWith((root) => {
      natural(root);
      remove(root, `${CUSTOMER}/cac:Party/cac:PartyIdentification`);
    });
    expect(result.rules).toEqual(["FAK61"]);
  });

  it("rejects an issuer outside Colombia: FAJ16", async () => {
    const result = await sendWith((root) =>
      setText(root, `${SUPPLIER}/${PHYSICAL}/cac:Country/cbc:IdentificationCode`, "VE"),
    );
    expect(result.rules).toEqual(["FAJ16"]);
  });

  it("rejects a municipality off DIVIPOLA and a department that is not the municipality's: FAJ09/FAJ12, FAJ29/FAJ32", async () => {
    const at = (path: string, value: string) => (root: XmlElement) => setText(root, path, value);
    // 11999: Bogotá's department, no such municipality; 05 is Antioquia, not Bogotá's 11001's
    expect((await sendWith(at(`${SUPPLIER}/${PHYSICAL}/cbc:ID`, "11999"))).rules).toEqual(["FAJ09"]);
    expect((await sendWith(at(`${SUPPLIER}/${PHYSICAL}/cbc:CountrySubentityCode`, "05"))).rules).toEqual([
      "FAJ12",
    ]);
    expect((await sendWith(at(`${SUPPLIER}/${REGISTRATION}/cbc:ID`, "11999"))).rules).toEqual(["FAJ29"]);
    expect((await sendWith(at(`${SUPPLIER}/${REGISTRATION}/cbc:CountrySubentityCode`, "00"))).rules).toEqual([
      "FAJ32",
    ]);
  });

  it("rejects a Colombian buyer's address off DIVIPOLA (FAK09/FAK12, FAK29/FAK32); a foreign one's is not list-checked", async () => {
    const at = (path: string, value: string) => (root: XmlElement) => setText(root, path, value);
    expect((await sendWith(at(`${CUSTOMER}/${PHYSICAL}/cbc:ID`, "05999"))).rules).toEqual(["FAK09"]);
    expect((await sendWith(at(`${CUSTOMER}/${PHYSICAL}/cbc:CountrySubentityCode`, "11"))).rules).toEqual([
      "FAK12",
    ]);
    expect((await sendWith(at(`${CUSTOMER}/${REGISTRATION}/cbc:ID`, "05999"))).rules).toEqual(["FAK29"]);
    expect((await sendWith(at(`${CUSTOMER}/${REGISTRATION}/cbc:CountrySubentityCode`, "99"))).rules).toEqual([
      "FAK32",
    ]);
    const abroad = await sendWith((root) => {
      for (const address of [`${CUSTOMER}/${PHYSICAL}`, `${CUSTOMER}/${REGISTRATION}`]) {
        setText(root, `${address}/cbc:ID`, "00000");
        setText(root, `${address}/cbc:CountrySubentityCode`, "00");
        setText(root, `${address}/cac:Country/cbc:IdentificationCode`, "US");
      }
    });
    expect(abroad.code).toBe("00");
  });
});

describe("the payment", () => {
  const MEANS = "cac:PaymentMeans";

  it("rejects a document without PaymentMeans: FAN01", async () => {
    expect((await sendWith((root) => remove(root, MEANS))).rules).toEqual(["FAN01"]);
  });

  it("rejects a forma de pago other than 1 or 2 (FAN02) and a payment means code off DIAN's list (FAN03)", async () => {
    expect((await sendWith((root) => setText(root, `${MEANS}/cbc:ID`, "3"))).rules).toEqual(["FAN02"]);
    expect((await sendWith((root) => setText(root, `${MEANS}/cbc:PaymentMeansCode`, "99"))).rules).toEqual([
      "FAN03",
    ]);
    // Odoo's 71 (Bonos), beside DIAN's list
    expect((await sendWith((root) => setText(root, `${MEANS}/cbc:PaymentMeansCode`, "71"))).code).toBe("00");
  });

  it("rejects a credit sale without its due date, or due before it was issued: FAN04", async () => {
    expect((await sendWith((root) => remove(root, `${MEANS}/cbc:PaymentDueDate`))).rules).toEqual(["FAN04"]);
    expect(
      (await sendWith((root) => setText(root, `${MEANS}/cbc:PaymentDueDate`, "2026-11-19"))).rules,
    ).toEqual(["FAN04"]);
  });

  it("rejects a document discount whose reason code is off DIAN's list: FAQ04", async () => {
    const spec: ContentSpec = {
      lines: [{ quantity: "1", price: "100.00", taxes: [{ code: "01", name: "IVA", percent: "19.00" }] }],
      discounts: [{ amount: "5.00", reasonCode: "00" }],
    };
    expect((await sendWith(() => {}, dianInvoice(1), spec)).code).toBe("00");
    const result = await sendWith(
      (root) => setText(root, "cac:AllowanceCharge/cbc:AllowanceChargeReasonCode", "11"),
      dianInvoice(1),
      spec,
    );
    expect(result.rules).toEqual(["FAQ04"]);
  });
});

describe("the dates", () => {
  it("rejects an invoice issued more than 10 days before today: FAD09c, with DIAN's words", async () => {
    const issued = dianInvoice(1).document.issue_date;
    const day = (offset: number) =>
      new Date(Date.parse(`${issued}T12:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
    try {
      standIn.setKnobs({ today: day(10) });
      expect((await sendWith(() => {})).code).toBe("00");
      standIn.setKnobs({ today: day(11) });
      const late = await sendWith(() => {});
      expect(late.errors).toEqual([
        "Regla: FAD09c, Rechazo: La fecha de emision es anterior en mas de 10 dias de la fecha actual",
      ]);
    } finally {
      standIn.setKnobs({ today: FIXTURES_TODAY });
    }
  });

  it("rejects a DueDate before the IssueDate: FAD11", async () => {
    expect((await sendWith((root) => setText(root, "cbc:DueDate", "2026-11-19"))).rules).toEqual(["FAD11"]);
  });
});

describe("the currency and the exchange rate", () => {
  const USD: ContentSpec = {
    lines: [{ quantity: "1", price: "3919109.58", taxes: [{ code: "01", name: "IVA", percent: "19.00" }] }],
    exchange: { target: "USD", rate: "3919.109578", date: "2026-11-19" },
  };
  const RATE = "cac:PaymentExchangeRate";
  const usd = (edit: (root: XmlElement) => void) => sendWith(edit, dianInvoice(1), USD);

  it("rejects a document currency off ISO 4217: FAD15a", async () => {
    expect((await sendWith((root) => setText(root, "cbc:DocumentCurrencyCode", "PES"))).errors).toEqual([
      "Regla: FAD15a, Rechazo: Código de divisa inválido",
    ]);
  });

  it("accepts a sale declared in USD, and rejects each part of the rate wrong: FAR02, FAR04, FAR05, FAR06, FAR07", async () => {
    expect((await usd(() => {})).code).toBe("00");
    expect((await usd((root) => setText(root, `${RATE}/cbc:SourceCurrencyCode`, "USD"))).rules).toEqual([
      "FAR02",
    ]);
    expect((await usd((root) => setText(root, `${RATE}/cbc:TargetCurrencyCode`, "COP"))).rules).toEqual([
      "FAR04",
    ]);
    expect((await usd((root) => setText(root, `${RATE}/cbc:TargetCurrencyCode`, "DOL"))).rules).toEqual([
      "FAR04",
    ]);
    expect(
      (await usd((root) => setText(root, `${RATE}/cbc:TargetCurrencyBaseRate`, "100.00"))).rules,
    ).toEqual(["FAR05"]);
    expect((await usd((root) => remove(root, `${RATE}/cbc:CalculationRate`))).rules).toEqual(["FAR06"]);
    expect((await usd((root) => remove(root, `${RATE}/cbc:Date`))).rules).toEqual(["FAR07"]);
  });

  it("reads a rate written as it may be: 1 as TargetCurrencyBaseRate is 1.00", async () => {
    expect((await usd((root) => setText(root, `${RATE}/cbc:TargetCurrencyBaseRate`, "1"))).code).toBe("00");
  });
});

describe("a document several rules break", () => {
  it("answers each rule it breaks, each once however many places break it", async () => {
    const result = await sendWith((root) => {
      setText(root, `${SUPPLIER}/${SCHEME}/cbc:TaxLevelCode`, "O-99");
      setText(root, `${CUSTOMER}/${PHYSICAL}/cbc:ID`, "05999");
      setText(root, `${CUSTOMER}/${REGISTRATION}/cbc:ID`, "05998");
      // a scheme misnamed in the document's TaxTotal and in a line's: FAS01b, once
      setText(root, "cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory/cac:TaxScheme/cbc:Name", "Impuesto");
      setText(
        root,
        "cac:InvoiceLine/cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory/cac:TaxScheme/cbc:Name",
        "Impuesto",
      );
    });
    expect(result.code).toBe("99");
    expect(result.rules).toEqual(["FAS01b", "FAJ26", "FAK09", "FAK29"]);
  });
});
