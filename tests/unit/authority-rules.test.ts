/**
 * Before sending, the invoice kind checks what DIAN would reject that the database does not refuse
 * (shared/co/authority-rules.ts), and says each problem once with DIAN's rule id (`rules`, answered as
 * `authority_rules`): the deal's currency and its rate, DIVIPOLA, the dates, the buyer.
 */
import { describe, expect, it } from "vitest";
import { demoInvoice } from "../../devkit/pdf/fixtures.ts";
import * as standIn from "../../sandbox/dian/code-lists.ts";
import * as standInPlaces from "../../sandbox/dian/divipola.ts";
import { isCurrency, isDepartment, isMunicipality } from "../../shared/co/code-lists.ts";
import { prepareInvoice } from "../../shared/core/invoices/document.ts";
import type { InvoiceDocumentRow } from "../../shared/kernel/rows.ts";

function refused(doc: InvoiceDocumentRow) {
  const prepared = prepareInvoice(doc, "uat");
  if (prepared.ok) throw new Error("the invoice was not refused");
  return { problems: prepared.problems, rules: prepared.rules ?? [] };
}

const rechazo = (rule: string, message: string) => ({ rule, kind: "rechazo", message });

describe("DIAN's rules checked before sending", () => {
  it("sends an invoice that breaks none: no rule", () => {
    expect(prepareInvoice(demoInvoice(), "uat").ok).toBe(true);
  });

  it("refuses a currency off DIAN's list (FAR04), or without its rate (FAR06) or the rate's date (FAR07)", () => {
    const doc = { ...demoInvoice(), currency: "XYZ", exchange_rate: null, exchange_rate_date: null };
    expect(refused(doc).rules).toEqual([
      rechazo("FAR04", "currency XYZ is not one of DIAN's currencies (ISO 4217)"),
      rechazo("FAR06", "exchange_rate is missing: an invoice in XYZ declares it"),
      rechazo("FAR07", "exchange_rate_date is missing: an invoice in XYZ declares it"),
    ]);
    const usd = {
      ...demoInvoice(),
      currency: "USD",
      exchange_rate: 3919.109578,
      exchange_rate_date: "2026-11-19",
    };
    expect(prepareInvoice(usd, "uat").ok).toBe(true);
  });

  it("refuses a municipality or a department off DIVIPOLA: the buyer's in Colombia (FAK09, FAK12), the company's (FAJ09, FAJ12)", () => {
    const doc = demoInvoice();
    const buyer = { ...doc, buyer_city_code: "11999", buyer_department_code: "00" };
    expect(refused(buyer).rules).toEqual([
      rechazo("FAK09", "buyer_city_code 11999 is not a DIVIPOLA municipality"),
      rechazo("FAK12", "buyer_department_code 00 is not a DIVIPOLA department"),
    ]);
    // abroad, the buyer's codes are not DIVIPOLA's
    expect(prepareInvoice({ ...buyer, buyer_country_code: "US" }, "uat").ok).toBe(true);
    const company = { ...doc, company: { ...doc.company, city_code: "05999", department_code: "04" } };
    expect(refused(company).rules).toEqual([
      rechazo("FAJ09", "the company's city_code 05999 is not a DIVIPOLA municipality"),
      rechazo("FAJ12", "the company's department_code 04 is not a DIVIPOLA department"),
    ]);
  });

  it("refuses a due date before the issue date, or a credit sale without one: FAN04, said once beside the database's own problem", () => {
    const doc = {
      ...demoInvoice(),
      due_date: "2026-11-19",
      problems: ["due_date 2026-11-19 is before the issue date 2026-11-20"],
    };
    const { problems, rules } = refused(doc);
    expect(problems).toEqual(["due_date 2026-11-19 is before the issue date 2026-11-20"]);
    expect(rules).toEqual([rechazo("FAN04", "due_date 2026-11-19 is before the issue date 2026-11-20")]);
    expect(refused({ ...demoInvoice(), payment_form: "2", due_date: null }).rules).toEqual([
      rechazo("FAN04", "due_date is missing: a credit sale (payment_form 2) has one"),
    ]);
  });

  it("refuses an issue date outside the numbering resolution's period: FAD09a", () => {
    const doc = demoInvoice();
    expect(refused({ ...doc, issue_date: "2019-01-18" }).rules).toEqual([
      rechazo("FAD09a", "the numbering resolution starts on 2019-01-19, after the issue date 2019-01-18"),
    ]);
    expect(refused({ ...doc, issue_date: "2031-01-01" }).rules).toEqual([
      rechazo("FAD09a", "the numbering resolution expired on 2030-01-19, before the issue date 2031-01-01"),
    ]);
  });

  it("refuses a natural person without an identification (FAK61) and a NIT's wrong check digit (FAK24), each said once", () => {
    const natural = { ...demoInvoice(), buyer_id_type: "13", buyer_id_number: null, buyer_person_type: "2" };
    expect(refused(natural)).toEqual({
      problems: ["buyer_id_number is missing"],
      rules: [rechazo("FAK61", "buyer_id_number is missing")],
    });
    const digit = { ...demoInvoice(), buyer_check_digit: "3" };
    expect(refused(digit)).toEqual({
      problems: ["buyer_check_digit 3 is wrong; the check digit of NIT 860000000 is 0"],
      rules: [rechazo("FAK24", "buyer_check_digit 3 is wrong; the check digit of NIT 860000000 is 0")],
    });
  });

  it("leaves rules out of a refusal that breaks none of DIAN's: a missing name is ours to ask", () => {
    expect(refused({ ...demoInvoice(), buyer_name: null })).toEqual({
      problems: ["buyer_name is missing"],
      rules: [],
    });
  });
});

describe("DIAN's lists, as the service and the DIAN stand-in each keep them", () => {
  it("agree code by code: DIVIPOLA's municipalities and departments, the currencies", () => {
    const codes = (width: number) =>
      Array.from({ length: 10 ** width }, (_, n) => String(n).padStart(width, "0"));
    const disagree = (codes: string[], ours: (c: string) => boolean, theirs: (c: string) => boolean) =>
      codes.filter((c) => ours(c) !== theirs(c));
    const municipalities = codes(5).filter(isMunicipality);
    expect(municipalities).toHaveLength(1122);
    expect(disagree(codes(5), isMunicipality, standInPlaces.isMunicipality)).toEqual([]);
    expect(codes(2).filter(isDepartment)).toHaveLength(33);
    expect(disagree(codes(2), isDepartment, standInPlaces.isDepartment)).toEqual([]);
    const letters = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"];
    const threeLetters = letters.flatMap((a) => letters.flatMap((b) => letters.map((c) => a + b + c)));
    expect(threeLetters.filter(isCurrency)).toHaveLength(178);
    expect(disagree(threeLetters, isCurrency, (c) => standIn.CURRENCIES.has(c))).toEqual([]);
  });
});
