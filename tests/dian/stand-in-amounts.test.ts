/**
 * The stand-in checks DIAN's arithmetic from the XML alone (sandbox/dian/rules-amounts.ts): documents
 * with the content of a real invoice — several taxes a line, per-unit taxes, discounts and charges,
 * withholdings, a foreign currency — written by hand here (tests/support/ubl-content.ts) are accepted,
 * and each rule is shown failing on a document broken by hand for it (tests/support/ubl-edit.ts:
 * edited, its CUFE recomputed, re-signed), answered with DIAN's rule id and nothing else.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { dianCreditNote, dianInvoice, signedAtIssue } from "../../devkit/dian/documents.ts";
import type { DianStandIn } from "../../sandbox/dian/index.ts";
import { openPkcs12, type Signer } from "../../shared/providers/dian/certificate.ts";
import { buildSignedDocument } from "../../shared/providers/dian/document.ts";
import type { DianDocumentInput } from "../../shared/providers/dian/input.ts";
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
import { type ContentSpec, replaceContent } from "../support/ubl-content.ts";
import {
  el,
  find,
  findAll,
  insertAfter,
  setText,
  signEdited,
  text,
  textOf,
  unsigned,
  type XmlElement,
} from "../support/ubl-edit.ts";

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

async function send(xml: Uint8Array) {
  const envelope = await soapRequest(sender, "SendBillSync", {
    fileName: "invoice.zip",
    contentFile: zipBase64({ "invoice.xml": xml }),
  });
  const answer = await (await post(standIn, envelope, "SendBillSync")).text();
  const errors = errorMessages(answer);
  return {
    code: field(answer, "StatusCode"),
    errors,
    rules: errors.map((e) => /^Regla: (\w+),/.exec(e)?.[1]),
  };
}

/** A devkit invoice (or `input`) given `spec`'s content, edited by `edit`, signed and sent. */
async function sendWith(
  spec: ContentSpec | null,
  edit: (root: XmlElement) => void = () => {},
  input: DianDocumentInput = dianInvoice(2),
) {
  const doc = await unsigned(input);
  if (spec) replaceContent(doc, spec);
  edit(doc.root);
  return send(await signEdited(doc, input, signer));
}

const IVA = (percent: string) => ({ code: "01", name: "IVA", percent });
const INC = (percent: string) => ({ code: "04", name: "INC", percent });
const BAGS = (bags: string) => ({
  code: "22",
  name: "INC Bolsas",
  perUnit: { amount: "70.00", measure: bags, unitCode: "NIU" },
});

/** A B2B sale: two taxes on a line, an exempt line, ICA; ReteFuente, ReteICA and ReteIVA. */
const B2B: ContentSpec = {
  lines: [
    { quantity: "1", price: "1000000.00", taxes: [IVA("19.00"), INC("8.00")] },
    { quantity: "3", price: "33333.33", taxes: [IVA("0.00"), { code: "03", name: "ICA", percent: "0.966" }] },
  ],
  withholdings: [
    { code: "05", name: "ReteIVA", percent: "15.00", base: "iva" },
    { code: "06", name: "ReteFuente", percent: "4.00", base: "lines" },
    { code: "07", name: "ReteICA", percent: "0.966", base: "lines" },
  ],
};

/** A shop's sale: a line discount and a line charge, a document discount (00) and charge; bags and IBUA. */
const SHOP: ContentSpec = {
  lines: [
    { quantity: "2", price: "50.00", discounts: ["10.00"], taxes: [IVA("19.00")] },
    { quantity: "1.5", price: "1234.567891", charges: ["100.00"], taxes: [IVA("5.00")] },
    { quantity: "5", price: "0.00", taxes: [BAGS("5")] },
    {
      quantity: "3",
      price: "2500.00",
      taxes: [
        IVA("19.00"),
        { code: "34", name: "IBUA", perUnit: { amount: "35.00", measure: "10500", unitCode: "MLT" } },
      ],
    },
  ],
  discounts: [{ amount: "5.00", reasonCode: "00" }],
  charges: ["3.00"],
};

/** An export-style sale declared in USD, amounts in pesos (brief-business §8). */
const USD: ContentSpec = {
  lines: [{ quantity: "2", price: "889559.49", taxes: [IVA("19.00")] }],
  exchange: { target: "USD", rate: "3919.109578", date: "2026-11-19" },
};

describe("documents with the content of a real invoice", () => {
  it.each([
    ["a B2B sale with two taxes a line, ICA and three withholdings", B2B],
    ["a shop's sale with discounts, charges and per-unit taxes (bags, IBUA per 100 mL)", SHOP],
    ["a sale declared in USD", USD],
  ])("accepts %s: 00, no rule", async (_, spec) => {
    const result = await sendWith(spec);
    expect(result.errors).toEqual([]);
    expect(result.code).toBe("00");
  });

  it("accepts the golden B2B figures worked by hand", async () => {
    const doc = await unsigned(dianInvoice(1));
    // 1 000 000 × 19 % = 190 000, × 8 % = 80 000; 3 × 33 333.33 = 99 999.99, ICA 0.966 % = 966.00
    expect(replaceContent(doc, B2B)).toMatchObject({
      extension: 109_999_999n,
      taxes: 27_096_600n,
      payable: 137_096_599n,
    });
    const withheld = findAll(doc.root, "cac:WithholdingTaxTotal").map((g) =>
      textOf(find(g, "cbc:TaxAmount")),
    );
    // ReteIVA 15 % of 190 000.00; ReteFuente 4 % and ReteICA 0.966 % of 1 099 999.99
    expect(withheld).toEqual(["28500.00", "44000.00", "10626.00"]);
  });
});

describe("the totals (FAU, CAU)", () => {
  const plus = (root: XmlElement, path: string, pesos: number) => {
    const element = find(root, `cac:LegalMonetaryTotal/${path}`);
    element.children = [(Number(textOf(element)) + pesos).toFixed(2)];
  };

  it("rejects a LineExtensionAmount that is not the lines' sum: FAU02", async () => {
    const result = await sendWith(SHOP, (root) => {
      for (const p of ["cbc:LineExtensionAmount", "cbc:TaxInclusiveAmount", "cbc:PayableAmount"])
        plus(root, p, 1);
    });
    expect(result.rules).toEqual(["FAU02"]);
    expect(result.errors[0]).toMatch(/^Regla: FAU02, Rechazo: El Valor Bruto antes de tributos no es igual/);
  });

  it("rejects a TaxExclusiveAmount that is not the lines' bases: FAU04", async () => {
    expect((await sendWith(B2B, (root) => plus(root, "cbc:TaxExclusiveAmount", 0.01))).rules).toEqual([
      "FAU04",
    ]);
  });

  it("rejects a TaxInclusiveAmount that is not the lines' amount and taxes: FAU06", async () => {
    const result = await sendWith(SHOP, (root) => {
      plus(root, "cbc:TaxInclusiveAmount", 1);
      plus(root, "cbc:PayableAmount", 1);
    });
    expect(result.rules).toEqual(["FAU06"]);
  });

  it("rejects an AllowanceTotalAmount that is not the document's discounts: FAU08", async () => {
    const result = await sendWith(SHOP, (root) => {
      plus(root, "cbc:AllowanceTotalAmount", 1);
      plus(root, "cbc:PayableAmount", -1);
    });
    expect(result.rules).toEqual(["FAU08"]);
    // an allowance total with no discount backing it: the sum of none is 0
    const unbacked = await sendWith(null, (root) => {
      insertAfter(
        find(root, "cac:LegalMonetaryTotal"),
        "cbc:TaxInclusiveAmount",
        text("cbc:AllowanceTotalAmount", "1.00", { currencyID: "COP" }),
      );
      plus(root, "cbc:PayableAmount", -1);
    });
    expect(unbacked.rules).toEqual(["FAU08"]);
  });

  it("rejects a PayableAmount that is not inclusive − discounts + charges: FAU14 (withholdings and advances aside)", async () => {
    expect((await sendWith(SHOP, (root) => plus(root, "cbc:PayableAmount", 0.01))).rules).toEqual(["FAU14"]);
    // B2B withholds 83 126.00: PayableAmount still ignores it, and is accepted
    expect((await sendWith(B2B)).code).toBe("00");
  });

  it("answers a credit note's total with the credit note's id: CAU02", async () => {
    const invoice = dianInvoice(2);
    // the stand-in knows the invoice the note is of (its BillingReference: CBG rules)
    expect((await sendWith(null, undefined, invoice)).rules).toEqual([]);
    const { authorityCode } = await buildSignedDocument(invoice, signer, signedAtIssue(invoice));
    const note = dianCreditNote(invoice, authorityCode);
    const result = await sendWith(
      null,
      (root) => {
        for (const p of ["cbc:LineExtensionAmount", "cbc:TaxInclusiveAmount", "cbc:PayableAmount"])
          plus(root, p, 1);
      },
      note,
    );
    expect(result.rules).toEqual(["CAU02"]);
  });
});

/** The document's first TaxTotal of `scheme`. */
const group = (root: XmlElement, scheme: string) =>
  findAll(root, "cac:TaxTotal").find(
    (g) => textOf(find(g, "cac:TaxSubtotal/cac:TaxCategory/cac:TaxScheme/cbc:ID")) === scheme,
  ) as XmlElement;
const add = (element: XmlElement, pesos: number) => {
  element.children = [(Number(textOf(element)) + pesos).toFixed(2)];
};

describe("the document's taxes (FAS)", () => {
  it("rejects a scheme whose name is not its ID's, a rate IVA does not have, 19.000: FAS01b", async () => {
    for (const edit of [
      (root: XmlElement) =>
        setText(group(root, "01"), "cac:TaxSubtotal/cac:TaxCategory/cac:TaxScheme/cbc:Name", "IVA 19"),
      (root: XmlElement) =>
        setText(group(root, "01"), "cac:TaxSubtotal/cac:TaxCategory/cbc:Percent", "19.000"),
      (root: XmlElement) =>
        setText(group(root, "04"), "cac:TaxSubtotal/cac:TaxCategory/cac:TaxScheme/cbc:ID", "08"),
    ]) {
      const result = await sendWith(B2B, edit);
      expect(result.rules).toEqual(["FAS01b"]);
      expect(result.errors).toEqual([
        "Regla: FAS01b, Rechazo: Tributo IVA (01), INC (04) informado no coincide, revisar Porcentaje, Nombre y ID.",
      ]);
    }
  });

  it("rejects a TaxTotal that is not the sum of its subtotals: FAS02", async () => {
    expect((await sendWith(B2B, (root) => add(find(group(root, "04"), "cbc:TaxAmount"), 1))).rules).toEqual([
      "FAS02",
    ]);
  });

  it("rejects two subtotals of one rate in a scheme's TaxTotal: FAS04", async () => {
    const twoAt19: ContentSpec = {
      lines: [
        { quantity: "1", price: "100.00", taxes: [IVA("19.00")] },
        { quantity: "1", price: "300.00", taxes: [IVA("19.00")] },
      ],
    };
    const result = await sendWith(twoAt19, (root) => {
      const iva = group(root, "01");
      const subtotal = (base: string, tax: string) =>
        el(
          "cac:TaxSubtotal",
          {},
          text("cbc:TaxableAmount", base, { currencyID: "COP" }),
          text("cbc:TaxAmount", tax, { currencyID: "COP" }),
          el(
            "cac:TaxCategory",
            {},
            text("cbc:Percent", "19.00"),
            el("cac:TaxScheme", {}, text("cbc:ID", "01"), text("cbc:Name", "IVA")),
          ),
        );
      iva.children = [find(iva, "cbc:TaxAmount"), subtotal("100.00", "19.00"), subtotal("300.00", "57.00")];
    });
    expect(result.rules).toEqual(["FAS04"]);
  });

  it("rejects a subtotal that is not its base × rate beyond the tolerance (±2.00): FAS07; within it, accepts", async () => {
    const off = (pesos: number) => (root: XmlElement) => {
      const iva = group(root, "01");
      add(find(iva, "cbc:TaxAmount"), pesos);
      add(find(iva, "cac:TaxSubtotal/cbc:TaxAmount"), pesos);
    };
    const beyond = await sendWith(B2B, off(2.01));
    expect(beyond.errors).toEqual([
      "Regla: FAS07, Rechazo: El valor del tributo informado no corresponde al producto del porcentaje aplicado sobre la base imponible",
    ]);
    expect((await sendWith(B2B, off(2))).code).toBe("00");
  });

  it("takes the tolerance from its knob: at 1 cent, 1.50 off is FAS07", async () => {
    const off = (root: XmlElement) => {
      const iva = group(root, "01");
      add(find(iva, "cbc:TaxAmount"), 1.5);
      add(find(iva, "cac:TaxSubtotal/cbc:TaxAmount"), 1.5);
    };
    expect((await sendWith(B2B, off)).code).toBe("00");
    standIn.setKnobs({ productToleranceCents: 1 });
    try {
      expect((await sendWith(B2B, off)).rules).toEqual(["FAS07"]);
    } finally {
      standIn.setKnobs({ productToleranceCents: 200 });
    }
  });

  it("rejects a per-unit subtotal that is not its measure × amount: FAS07, in the per-unit words", async () => {
    const result = await sendWith(SHOP, (root) => {
      const bags = group(root, "22");
      add(find(bags, "cbc:TaxAmount"), 70);
      add(find(bags, "cac:TaxSubtotal/cbc:TaxAmount"), 70);
    });
    expect(result.errors).toEqual([
      "Regla: FAS07, Rechazo: El valor del tributo correspondiente al precio unitario del impuesto multiplicado por la cantidad de item vendidos",
    ]);
  });

  it("rejects a TaxTotal without subtotals: FAS01b", async () => {
    const result = await sendWith(null, (root) => {
      insertAfter(
        root,
        "cac:TaxTotal",
        el("cac:TaxTotal", {}, text("cbc:TaxAmount", "0.00", { currencyID: "COP" })),
      );
    });
    expect(result.rules).toEqual(["FAS01b"]);
  });
});

/** The line's TaxTotal of `scheme` in line `n` (1-based). */
const lineGroup = (root: XmlElement, n: number, scheme: string) =>
  findAll(root, `cac:InvoiceLine[${n}]/cac:TaxTotal`).find(
    (g) => textOf(find(g, "cac:TaxSubtotal/cac:TaxCategory/cac:TaxScheme/cbc:ID")) === scheme,
  ) as XmlElement;

describe("each line's taxes and amount (FAX, FAV06)", () => {
  it("rejects two TaxTotals of one scheme on a line: FAX01", async () => {
    const twice: ContentSpec = {
      lines: [{ quantity: "1", price: "100.00", taxes: [IVA("19.00"), IVA("5.00")] }],
    };
    expect((await sendWith(twice)).rules).toEqual(["FAX01"]);
  });

  it("rejects a line TaxTotal that is not the sum of its subtotals: FAX02", async () => {
    const result = await sendWith(B2B, (root) =>
      add(find(lineGroup(root, 1, "04"), "cac:TaxSubtotal/cbc:TaxAmount"), 1),
    );
    expect(result.rules).toEqual(["FAX02"]);
  });

  it("rejects two subtotals of one rate in a line's TaxTotal: FAX04", async () => {
    const result = await sendWith(B2B, (root) => {
      const iva = lineGroup(root, 1, "01");
      const subtotal = find(iva, "cac:TaxSubtotal");
      setText(subtotal, "cbc:TaxableAmount", "500000.00");
      setText(subtotal, "cbc:TaxAmount", "95000.00");
      iva.children.push(structuredClone(subtotal));
    });
    expect(result.rules).toEqual(["FAX04"]);
  });

  it("rejects a line tax that is not its base × rate: FAX07; per unit, in the per-unit words", async () => {
    const rate = await sendWith(B2B, (root) =>
      setText(lineGroup(root, 1, "01"), "cac:TaxSubtotal/cac:TaxCategory/cbc:Percent", "16.00"),
    );
    expect(rate.errors).toEqual([
      "Regla: FAX07, Rechazo: El valor del tributo correspondiente a una de las tarifas correspondientes es diferente del producto del porcentaje aplicado sobre la base imponible",
    ]);
    const perUnit = await sendWith(SHOP, (root) =>
      setText(lineGroup(root, 3, "22"), "cac:TaxSubtotal/cbc:PerUnitAmount", "80.00"),
    );
    expect(perUnit.errors).toEqual([
      "Regla: FAX07, Rechazo: El valor del tributo correspondiente al precio unitario del impuesto multiplicado por la cantidad de item vendidos",
    ]);
  });

  it("rejects a line amount that is not price × quantity − discounts + charges: FAV06", async () => {
    expect(
      (await sendWith(SHOP, (root) => setText(root, "cac:InvoiceLine[1]/cac:Price/cbc:PriceAmount", "55.00")))
        .rules,
    ).toEqual(["FAV06"]);
    expect(
      (
        await sendWith(SHOP, (root) =>
          setText(root, "cac:InvoiceLine[2]/cac:AllowanceCharge/cbc:Amount", "97.00"),
        )
      ).rules,
    ).toEqual(["FAV06"]);
  });

  it("answers a credit note's line with the credit note's id: CAV06", async () => {
    const invoice = dianInvoice(2);
    // the stand-in knows the invoice the note is of (its BillingReference: CBG rules)
    expect((await sendWith(null, undefined, invoice)).rules).toEqual([]);
    const { authorityCode } = await buildSignedDocument(invoice, signer, signedAtIssue(invoice));
    const note = dianCreditNote(invoice, authorityCode);
    const result = await sendWith(
      null,
      (root) => setText(root, "cac:CreditNoteLine/cac:Price/cbc:PriceAmount", "1.00"),
      note,
    );
    expect(result.rules).toEqual(["CAV06"]);
  });
});

/** The document's WithholdingTaxTotal of `scheme`. */
const withholding = (root: XmlElement, scheme: string) =>
  findAll(root, "cac:WithholdingTaxTotal").find(
    (g) => textOf(find(g, "cac:TaxSubtotal/cac:TaxCategory/cac:TaxScheme/cbc:ID")) === scheme,
  ) as XmlElement;

describe("the withholdings (FAT)", () => {
  it("rejects two WithholdingTaxTotals of one scheme: FAT01", async () => {
    const twice: ContentSpec = {
      ...B2B,
      withholdings: [
        { code: "06", name: "ReteFuente", percent: "4.00", base: "lines" },
        { code: "06", name: "ReteFuente", percent: "2.50", base: "lines" },
      ],
    };
    expect((await sendWith(twice)).rules).toEqual(["FAT01"]);
  });

  it("rejects a withholding group that is not the sum of its subtotals: FAT02", async () => {
    expect(
      (await sendWith(B2B, (root) => add(find(withholding(root, "06"), "cbc:TaxAmount"), 1))).rules,
    ).toEqual(["FAT02"]);
  });

  it("rejects two subtotals of one rate in a withholding group: FAT04", async () => {
    const result = await sendWith(B2B, (root) => {
      const rete = withholding(root, "06");
      const subtotal = find(rete, "cac:TaxSubtotal");
      setText(subtotal, "cbc:TaxableAmount", "550000.00");
      setText(subtotal, "cbc:TaxAmount", "22000.00");
      rete.children.push(structuredClone(subtotal));
    });
    expect(result.rules).toEqual(["FAT04"]);
  });

  it("rejects a withholding that is not its base × rate: FAT07", async () => {
    const result = await sendWith(B2B, (root) => {
      const rete = withholding(root, "07");
      add(find(rete, "cbc:TaxAmount"), 5);
      add(find(rete, "cac:TaxSubtotal/cbc:TaxAmount"), 5);
    });
    expect(result.rules).toEqual(["FAT07"]);
  });

  it("rejects a withholding scheme off DIAN's list (FAT12) and a name not its scheme's (FAT13)", async () => {
    const scheme = "cac:TaxSubtotal/cac:TaxCategory/cac:TaxScheme";
    expect(
      (await sendWith(B2B, (root) => setText(withholding(root, "06"), `${scheme}/cbc:ID`, "08"))).rules,
    ).toEqual(["FAT12"]);
    expect(
      (await sendWith(B2B, (root) => setText(withholding(root, "06"), `${scheme}/cbc:Name`, "Retención")))
        .rules,
    ).toEqual(["FAT13"]);
    // Odoo's name for 06 is DIAN's too
    expect(
      (await sendWith(B2B, (root) => setText(withholding(root, "06"), `${scheme}/cbc:Name`, "ReteRenta")))
        .code,
    ).toBe("00");
  });
});

describe("positive values (VLR01)", () => {
  it("rejects an amount below zero: VLR01", async () => {
    const result = await sendWith(SHOP, (root) =>
      insertAfter(
        find(root, "cac:LegalMonetaryTotal"),
        "cbc:ChargeTotalAmount",
        text("cbc:PrepaidAmount", "-100.00", { currencyID: "COP" }),
      ),
    );
    expect(result.errors).toEqual([
      "Regla: VLR01, Rechazo: Los valores monetarios/porcentajes deben corresponder a valores Positivos",
    ]);
  });
});
