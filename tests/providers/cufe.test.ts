import { describe, expect, it } from "vitest";
import {
  type CufeInput,
  computeCude,
  computeCufe,
  cudeSource,
  cufeSource,
  dianQrText,
  dianQrUrl,
  formatAmount,
  tipoAmbiente,
} from "../../shared/co/cufe.ts";

/**
 * The worked example of the DIAN Anexo Técnico (CUFE section), as reproduced in public summaries
 * of the Anexo v1.9 (e.g. bryamzxz/facho docs/ANEXO_TECNICO_V19.md §3.4).
 */
const ANEXO_EXAMPLE: CufeInput = {
  number: "323200000129",
  issueDate: "2019-01-16",
  issueTime: "10:53:10-05:00",
  subtotal: "1500000.00",
  iva: "285000.00",
  inc: "0.00",
  ica: "0.00",
  total: "1785000.00",
  issuerNit: "700085371",
  buyerId: "800199436",
  technicalKey: "693ff6f2a553c3646a063436fd4dd9ded0311471",
  environment: "prd",
};
const ANEXO_SOURCE =
  "3232000001292019-01-1610:53:10-05:001500000.0001285000.00040.00030.001785000.00700085371800199436693ff6f2a553c3646a063436fd4dd9ded03114711";
const ANEXO_CUFE =
  "8bb918b19ba22a694f1da11c643b5e9de39adf60311cf179179e9b33381030bcd4c3c3f156c506ed5908f9276f5bd9b4";

describe("CUFE", () => {
  it("concatenates the Anexo fields in order, without separators", () => {
    expect(cufeSource(ANEXO_EXAMPLE)).toBe(ANEXO_SOURCE);
  });

  it("reproduces the Anexo's published CUFE", async () => {
    await expect(computeCufe(ANEXO_EXAMPLE)).resolves.toBe(ANEXO_CUFE);
  });

  it("accepts amounts as numbers and unpadded strings with the same result", async () => {
    const cufe = await computeCufe({
      ...ANEXO_EXAMPLE,
      subtotal: 1_500_000,
      iva: "285000",
      inc: 0,
      ica: "0",
      total: 1785000.0,
    });
    expect(cufe).toBe(ANEXO_CUFE);
  });

  it("reads padded amounts as the same amounts", async () => {
    const cufe = await computeCufe({
      ...ANEXO_EXAMPLE,
      subtotal: " 1500000.00 ",
      iva: "000285000.00",
      inc: "0000",
      ica: "\t0.0\n",
      total: "01785000.0",
    });
    expect(cufe).toBe(ANEXO_CUFE);
  });

  it("changes with the environment: TipoAmbiente 1 in production, 2 in habilitación", async () => {
    expect(tipoAmbiente("prd")).toBe("1");
    expect(tipoAmbiente("uat")).toBe("2");
    const test = await computeCufe({ ...ANEXO_EXAMPLE, environment: "uat" });
    expect(test).toMatch(/^[0-9a-f]{96}$/);
    expect(test).not.toBe(ANEXO_CUFE);
    expect(cufeSource({ ...ANEXO_EXAMPLE, environment: "uat" }).endsWith("2")).toBe(true);
  });

  it("changes with any input field", async () => {
    const variants: Partial<CufeInput>[] = [
      { number: "323200000130" },
      { issueTime: "10:53:11-05:00" },
      { total: "1785000.01" },
      { buyerId: "800199437" },
      { technicalKey: "x" },
    ];
    for (const change of variants) {
      await expect(computeCufe({ ...ANEXO_EXAMPLE, ...change })).resolves.not.toBe(ANEXO_CUFE);
    }
  });
});

describe("CUDE", () => {
  const { technicalKey: _clTec, ...note } = ANEXO_EXAMPLE;
  const PIN = "12345";

  it("is the CUFE's formula with the software PIN where the technical key goes", async () => {
    expect(cudeSource({ ...note, softwarePin: PIN })).toBe(
      ANEXO_SOURCE.replace(ANEXO_EXAMPLE.technicalKey, PIN),
    );
    const cude = await computeCude({ ...note, softwarePin: PIN });
    expect(cude).toMatch(/^[0-9a-f]{96}$/);
    expect(cude).toBe(await computeCufe({ ...note, technicalKey: PIN }));
    expect(cude).not.toBe(ANEXO_CUFE);
  });

  it("changes with the PIN", async () => {
    const a = await computeCude({ ...note, softwarePin: "12345" });
    const b = await computeCude({ ...note, softwarePin: "12346" });
    expect(a).not.toBe(b);
  });
});

describe("formatAmount", () => {
  it("writes two decimals with a point and truncates instead of rounding", () => {
    expect(formatAmount("1234567.895")).toBe("1234567.89");
    expect(formatAmount(1234567.895)).toBe("1234567.89");
    expect(formatAmount("99.999")).toBe("99.99");
    expect(formatAmount("5")).toBe("5.00");
    expect(formatAmount("007.1")).toBe("7.10");
    expect(formatAmount(0.29)).toBe("0.29");
    expect(formatAmount(0)).toBe("0.00");
  });

  it("keeps one zero before the point and pads missing decimals", () => {
    expect(formatAmount("0")).toBe("0.00");
    expect(formatAmount("000")).toBe("0.00");
    expect(formatAmount("000.5")).toBe("0.50");
    expect(formatAmount("100")).toBe("100.00");
    expect(formatAmount("5.")).toBe("5.00");
    expect(formatAmount("  42.1  ")).toBe("42.10");
    expect(formatAmount(100)).toBe("100.00");
    expect(formatAmount(0.1 + 0.2)).toBe("0.30");
  });

  it("refuses what is not a non-negative decimal", () => {
    for (const bad of ["-1.00", "1e5", "1,000.00", "", "abc", ".5", "1.2.3", "x1.00", "1.00x", "1 000.00"])
      expect(() => formatAmount(bad)).toThrow(
        new RangeError(`not a non-negative decimal amount: ${JSON.stringify(bad)}`),
      );
    expect(() => formatAmount(Number.NaN)).toThrow(RangeError);
    expect(() => formatAmount(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => formatAmount(-0.5)).toThrow(RangeError);
    expect(() => formatAmount(-0.001)).toThrow(/not a non-negative amount/);
  });
});

describe("DIAN QR text", () => {
  const input = {
    number: "SETP990000001",
    issueDate: "2026-11-20",
    issueTime: "10:30:00-05:00",
    issuerNit: "900123456",
    buyerId: "1.020.304-050",
    subtotal: "110000.00",
    iva: "19000.00",
    otherTaxes: "0",
    total: "129000.00",
    cufe: ANEXO_CUFE,
  };

  it("lists the fields one per line, ending with the habilitación lookup URL in uat", () => {
    expect(dianQrText({ ...input, environment: "uat" }).split("\n")).toEqual([
      "NumFac: SETP990000001",
      "FecFac: 2026-11-20",
      "HorFac: 10:30:00-05:00",
      "NitFac: 900123456",
      "DocAdq: 1020304050",
      "ValFac: 110000.00",
      "ValIva: 19000.00",
      "ValOtroIm: 0.00",
      "ValTolFac: 129000.00",
      `CUFE: ${ANEXO_CUFE}`,
      `QRCode: https://catalogo-vpfe-hab.dian.gov.co/document/searchqr?documentkey=${ANEXO_CUFE}`,
    ]);
  });

  it("writes the NITs with digits only, whatever separators they were stored with", () => {
    const lines = dianQrText({
      ...input,
      issuerNit: "900.123.456",
      buyerId: "1 020 304-050",
      environment: "uat",
    }).split("\n");
    expect(lines).toContain("NitFac: 900123456");
    expect(lines).toContain("DocAdq: 1020304050");
    expect(dianQrText({ ...input, issuerNit: "900-123-456", environment: "uat" })).toContain(
      "NitFac: 900123456\n",
    );
  });

  it("keeps letters in a buyer's document number (a passport), dropping only separators", () => {
    expect(dianQrText({ ...input, buyerId: "AB-12.345 6", environment: "uat" })).toContain(
      "DocAdq: AB123456\n",
    );
  });

  it("points to the production catalogue in prd", () => {
    expect(dianQrText({ ...input, environment: "prd" })).toContain(
      `QRCode: https://catalogo-vpfe.dian.gov.co/document/searchqr?documentkey=${ANEXO_CUFE}`,
    );
    expect(dianQrUrl("abc", "prd")).toBe(
      "https://catalogo-vpfe.dian.gov.co/document/searchqr?documentkey=abc",
    );
  });
});
