import { describe, expect, it } from "vitest";
import {
  acceptedFiscal,
  DEMO_CUFE,
  DEMO_QR_TEXT,
  DEMO_VALIDATED_AT,
  demoCreditNote,
  demoInvoice,
  line,
  pendingFiscal,
  withLines,
} from "../../devkit/pdf/fixtures.ts";
import { DEMO_SOFTWARE, softwareLine } from "../../shared/co/software.ts";
import type { DebitNoteDocumentRow } from "../../shared/kernel/rows.ts";
import {
  INVOICE_TEMPLATE_VERSION,
  toCreditNotePdfModel,
  toDebitNotePdfModel,
  toInvoicePdfModel,
} from "../../shared/pdf/model.ts";

describe("toInvoicePdfModel", () => {
  it("formats the issuer, the buyer and the invoice data the Colombian way", () => {
    const model = toInvoicePdfModel(demoInvoice(), pendingFiscal());
    expect(model.templateVersion).toBe(INVOICE_TEMPLATE_VERSION);
    expect(model.pageSize).toBe("letter");
    expect(model.issuer.taxId).toBe("NIT 900.123.456-8");
    expect(model.issuer.details).toContain("Bogotá, D.C.");
    expect(model.issuer.resolution).toBe(
      "Autorización de numeración de facturación electrónica DIAN No. 18760000001, del 19/01/2019, " +
        "prefijo SETP, del SETP990000000 al SETP995000000, vigente hasta el 19/01/2030",
    );
    expect(model.buyer).toMatchObject({ name: "Cliente Demo 1 S.A.S.", taxId: "NIT 860.000.000-0" });
    expect(Object.fromEntries(model.facts)).toEqual({
      "Fecha de emisión": "20/11/2026",
      "Hora de emisión": "10:15:00 (UTC-05:00)",
      "Fecha de vencimiento": "—",
      "Forma de pago": "Contado",
      "Medio de pago": "Efectivo",
      Moneda: "COP",
    });
  });

  it("formats lines, groups taxes by code and rate, and totals in exact cents", () => {
    const doc = withLines(demoInvoice(), [
      line(1, 3, 0.1, 19),
      line(2, 1, 1_000_000, 19),
      line(3, 2.5, 200, 5),
      line(4, 1, 50_000, 8, { taxCode: "04" }),
      line(5, 1, 10_000, 0),
      line(6, 1, 2_000, 0, { taxes: [] }),
    ]);
    const model = toInvoicePdfModel(doc, pendingFiscal());
    expect(model.lines[2]).toMatchObject({
      quantity: "2,5",
      unitPrice: "$ 200,00",
      tax: "IVA 5 %",
      total: "$ 500,00",
    });
    // exempt (IVA at 0 %) is not "outside the tax" (ZZ)
    expect(model.lines[4]).toMatchObject({ tax: "IVA exento 0 %", unit: "Unidad" });
    expect(model.lines[5]).toMatchObject({ tax: "No gravado" });
    // the database's order: IVA, INC, ICA first, rates ascending; the lines outside every tax last
    expect(model.taxes).toEqual([
      { name: "IVA exento", rate: "0 %", base: "$ 10.000,00", amount: "$ 0,00" },
      { name: "IVA", rate: "5 %", base: "$ 500,00", amount: "$ 25,00" },
      { name: "IVA", rate: "19 %", base: "$ 1.000.000,30", amount: "$ 190.000,06" },
      { name: "INC", rate: "8 %", base: "$ 50.000,00", amount: "$ 4.000,00" },
      { name: "No gravado", rate: "—", base: "$ 2.000,00", amount: "$ 0,00" },
    ]);
    expect(model.totals).toEqual([
      { label: "Subtotal (valor bruto)", value: "$ 1.062.500,30" },
      { label: "IVA", value: "$ 190.025,06" },
      { label: "Impuesto al consumo (INC)", value: "$ 4.000,00" },
      { label: "Total impuestos", value: "$ 194.025,06" },
      { label: "TOTAL A PAGAR", value: "$ 1.256.525,36", grand: true },
    ]);
    expect(model.amountInWords).toBe(
      "UN MILLÓN DOSCIENTOS CINCUENTA Y SEIS MIL QUINIENTOS VEINTICINCO PESOS CON TREINTA Y SEIS CENTAVOS M/CTE",
    );
  });

  it("stamps an accepted invoice, rebuilding the DIAN QR text when none was stored", () => {
    const model = toInvoicePdfModel(demoInvoice(), acceptedFiscal());
    expect(model.fiscal).toEqual({
      stamped: true,
      authorityCode: DEMO_CUFE,
      qrText: DEMO_QR_TEXT,
      validatedAt: DEMO_VALIDATED_AT,
      environment: "uat",
      names: { title: "Factura electrónica de venta", short: "Factura", codeLabel: "CUFE" },
      software: softwareLine(DEMO_SOFTWARE),
      corrects: null,
    });
    expect(model.documentDate).toBe(DEMO_VALIDATED_AT);
  });

  it("prints the provider's QR text when it was stored, and falls back to transmitted_at", () => {
    const fiscal = acceptedFiscal({
      qr_text: "stored",
      validated_at: null,
      transmitted_at: "2026-11-21T00:00:00Z",
    });
    const model = toInvoicePdfModel(demoInvoice(), fiscal);
    expect(model.fiscal).toMatchObject({
      stamped: true,
      qrText: "stored",
      validatedAt: "2026-11-21T00:00:00Z",
    });
  });

  it.each([
    ["pendiente", "pendiente de envío a la DIAN"],
    ["en_proceso", "en proceso de validación por la DIAN"],
    ["error", "no aceptada por la DIAN"],
  ] as const)("does not stamp a %s invoice", (status, statusLabel) => {
    const model = toInvoicePdfModel(demoInvoice(), { ...pendingFiscal(), status });
    expect(model.fiscal).toEqual({ stamped: false, statusLabel, software: softwareLine(DEMO_SOFTWARE) });
    expect(model.documentDate).toBe("2026-11-20T10:15:00-05:00");
  });

  it("does not stamp an accepted invoice that has no CUFE", () => {
    expect(toInvoicePdfModel(demoInvoice(), acceptedFiscal({ authority_code: null })).fiscal.stamped).toBe(
      false,
    );
  });
});

describe("toCreditNotePdfModel", () => {
  it("shows the note's own data and what it corrects, never the invoice numbering authorization", () => {
    const note = demoCreditNote();
    const model = toCreditNotePdfModel(
      note,
      acceptedFiscal({ status: "emitida", authority_code: "c".repeat(96) }),
    );
    expect(model.number).toBe("NC1");
    expect(model.issuer.resolution).toBeNull();
    expect(Object.fromEntries(model.reference?.facts ?? [])).toMatchObject({
      Factura: "SETP990000201 del 20/11/2026",
      "CUFE de la factura": DEMO_CUFE,
      "Concepto de corrección": "1 · Devolución parcial de los bienes y/o no aceptación parcial del servicio",
    });
    // the validation block repeats it, so a stamped provider PDF shows it too
    expect(model.fiscal).toMatchObject({
      stamped: true,
      corrects: {
        invoice: "SETP990000201 del 20/11/2026",
        cufe: DEMO_CUFE,
        concept: "1 · Devolución parcial de los bienes y/o no aceptación parcial del servicio",
      },
    });
  });
});

describe("toDebitNotePdfModel", () => {
  /** A debit note charging interest on the demo invoice, shaped as `debit_note_payload` returns it. */
  const demoDebitNote = (): DebitNoteDocumentRow => {
    const { lines, ...note } = demoCreditNote();
    const [first] = lines;
    if (!first) throw new Error("the demo note has lines");
    const { invoice_line_id: _, ...interest } = first;
    return {
      ...note,
      number: "ND7",
      concept_code: "1",
      reason: "Intereses de mora: 30 días",
      lines: [{ ...interest, description: "Intereses de mora (2 % mensual)" }],
    };
  };

  it("has its own title, raises the invoice by its CUFE, and names DIAN's debit-note concept", () => {
    const model = toDebitNotePdfModel(
      demoDebitNote(),
      acceptedFiscal({ status: "emitida", authority_code: "d".repeat(96) }),
    );
    expect(model.number).toBe("ND7");
    expect(model.names.title).toBe("Nota débito electrónica");
    expect(model.totals.at(-1)).toMatchObject({ label: "TOTAL NOTA DÉBITO", grand: true });
    expect(model.lines[0]?.description).toBe("Intereses de mora (2 % mensual)");
    expect(model.issuer.resolution).toBeNull();
    expect(Object.fromEntries(model.facts)).toMatchObject({ "Factura que ajusta": "SETP990000201" });
    expect(Object.fromEntries(model.reference?.facts ?? [])).toMatchObject({
      Factura: "SETP990000201 del 20/11/2026",
      "CUFE de la factura": DEMO_CUFE,
      "Concepto de la nota débito": "1 · Intereses",
    });
    expect(model.fiscal).toMatchObject({
      stamped: true,
      corrects: {
        labels: { invoice: "Factura que ajusta", concept: "Concepto de la nota débito" },
        invoice: "SETP990000201 del 20/11/2026",
        cufe: DEMO_CUFE,
        concept: "1 · Intereses",
      },
    });
  });
});

describe("the issuing software", () => {
  it("prints the configured software and its maker with the maker's check digit, on every kind", () => {
    const software = { name: "Facturador X", maker: "Software Andino S.A.S.", makerNit: "800197268" };
    const line = "Software: Facturador X · Fabricante del software: Software Andino S.A.S., NIT 800197268-4";
    expect(toInvoicePdfModel(demoInvoice(), pendingFiscal(), { software }).fiscal.software).toBe(line);
    expect(
      toCreditNotePdfModel(demoCreditNote(), acceptedFiscal({ status: "emitida" }), { software }).fiscal
        .software,
    ).toBe(line);
  });
});
