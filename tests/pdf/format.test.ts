import { describe, expect, it } from "vitest";
import { toCents } from "../../shared/kernel/money.ts";
import {
  formatAmount,
  formatDate,
  formatMoney,
  formatQuantity,
  formatRate,
  formatTaxId,
  formatTime,
  formatTimestampCo,
  groupThousands,
  isoTimeWithOffset,
} from "../../shared/pdf/format.ts";
import { integerToSpanish, pesosInWords } from "../../shared/pdf/words.ts";

describe("Colombian number formatting", () => {
  it("groups thousands with dots", () => {
    expect(groupThousands("0")).toBe("0");
    expect(groupThousands("999")).toBe("999");
    expect(groupThousands("1000")).toBe("1.000");
    expect(groupThousands("1234567")).toBe("1.234.567");
    expect(groupThousands("123456789012")).toBe("123.456.789.012");
  });

  it("prints amounts with a decimal comma and always two decimals", () => {
    expect(formatAmount(0n)).toBe("0,00");
    expect(formatAmount(5n)).toBe("0,05");
    expect(formatAmount(123456789n)).toBe("1.234.567,89");
    expect(formatAmount(-100050n)).toBe("-1.000,50");
  });

  it("prints money with the currency's symbol, or its ISO code", () => {
    expect(formatMoney(123456789n, "COP")).toBe("$ 1.234.567,89");
    expect(formatMoney(13000000n, "COP")).toBe("$ 130.000,00");
    expect(formatMoney(199n, "USD")).toBe("US$ 1,99");
    expect(formatMoney(250000n, "EUR")).toBe("€ 2.500,00");
    expect(formatMoney(100n, "MXN")).toBe("MXN 1,00");
    expect(formatMoney(-150n, "COP")).toBe("-$ 1,50");
  });

  it("converts JSON numbers from numeric(18,2) to exact cents", () => {
    expect(toCents(0.29)).toBe(29n);
    expect(toCents(119000)).toBe(11900000n);
    expect(toCents(1234567890123.45)).toBe(123456789012345n);
    expect(toCents("10.5")).toBe(1050n);
    expect(() => toCents("1e3")).toThrow(RangeError);
  });

  it("prints quantities without trailing zeros", () => {
    expect(formatQuantity(2)).toBe("2");
    expect(formatQuantity(1.5)).toBe("1,5");
    expect(formatQuantity(1234.125)).toBe("1.234,125");
    expect(formatQuantity(0.000001)).toBe("0,000001");
  });

  it("prints rates as percentages", () => {
    expect(formatRate(19)).toBe("19 %");
    expect(formatRate(8.5)).toBe("8,5 %");
    expect(formatRate(0)).toBe("0 %");
    // ReteICA's 9,66 per mil, as declared: not rounded to 0,97
    expect(formatRate(0.966)).toBe("0,966 %");
  });

  it("prints NITs grouped with the check digit", () => {
    expect(formatTaxId("900123456", "8")).toBe("900.123.456-8");
    expect(formatTaxId("1020304050")).toBe("1.020.304.050");
    expect(formatTaxId("AB-123", null)).toBe("AB-123");
  });
});

describe("Colombian dates and times", () => {
  it("prints dates day first", () => {
    expect(formatDate("2026-11-20")).toBe("20/11/2026");
  });

  it("normalises PostgreSQL's time with time zone to the DIAN form", () => {
    expect(isoTimeWithOffset("10:15:00-05")).toBe("10:15:00-05:00");
    expect(isoTimeWithOffset("10:15:00.123-0530")).toBe("10:15:00-05:30");
    expect(isoTimeWithOffset("10:15:00-05:00")).toBe("10:15:00-05:00");
    expect(formatTime("10:15:00-05")).toBe("10:15:00 (UTC-05:00)");
  });

  it("prints instants in Colombian time, whatever offset they come with", () => {
    expect(formatTimestampCo("2026-11-20T15:16:42Z")).toBe("20/11/2026 10:16:42 (UTC-05:00)");
    expect(formatTimestampCo("2026-11-20T10:16:42-05:00")).toBe("20/11/2026 10:16:42 (UTC-05:00)");
    expect(formatTimestampCo("2027-01-01T03:00:00Z")).toBe("31/12/2026 22:00:00 (UTC-05:00)");
  });
});

describe("amounts in words", () => {
  it.each([
    [0n, "cero"],
    [1n, "uno"],
    [15n, "quince"],
    [21n, "veintiuno"],
    [31n, "treinta y uno"],
    [100n, "cien"],
    [101n, "ciento uno"],
    [999n, "novecientos noventa y nueve"],
    [1000n, "mil"],
    [21000n, "veintiún mil"],
    [100000n, "cien mil"],
    [101000n, "ciento un mil"],
    [1000000n, "un millón"],
    [2500000n, "dos millones quinientos mil"],
    [1000000000n, "mil millones"],
    [21000000000n, "veintiún mil millones"],
    [1000000000000n, "un billón"],
  ])("%s is “%s”", (value, words) => {
    expect(integerToSpanish(value)).toBe(words);
  });

  it("writes pesos with the apocope, 'de' after round millions, and centavos", () => {
    expect(pesosInWords(13000000n)).toBe("CIENTO TREINTA MIL PESOS M/CTE");
    expect(pesosInWords(100n)).toBe("UN PESO M/CTE");
    expect(pesosInWords(2100n)).toBe("VEINTIÚN PESOS M/CTE");
    expect(pesosInWords(100000000n)).toBe("UN MILLÓN DE PESOS M/CTE");
    expect(pesosInWords(300000000n)).toBe("TRES MILLONES DE PESOS M/CTE");
    expect(pesosInWords(110000000n)).toBe("UN MILLÓN CIEN MIL PESOS M/CTE");
    expect(pesosInWords(1638648195n)).toBe(
      "DIECISÉIS MILLONES TRESCIENTOS OCHENTA Y SEIS MIL CUATROCIENTOS OCHENTA Y UN PESOS CON NOVENTA Y CINCO CENTAVOS M/CTE",
    );
    expect(pesosInWords(1n)).toBe("CERO PESOS CON UN CENTAVO M/CTE");
  });
});
