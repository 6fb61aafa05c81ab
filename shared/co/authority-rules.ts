/**
 * What DIAN would reject in an invoice that the database does not already refuse, found before it
 * is sent, each with DIAN's rule id, so an issuer learns it from us without a round trip (issue 36
 * item 5). The arithmetic is not here: the database computes every amount (docs/adr/0009), and the
 * code lists it holds cannot be broken either. What remains:
 *
 * - the lists the database does not hold (./code-lists.ts): the deal's currency (FAR04) and the
 *   DIVIPOLA municipalities and departments of the issuer (FAJ09, FAJ12) and of a buyer in Colombia
 *   (FAK09, FAK12);
 * - a foreign currency's rate and its date (FAR06, FAR07), a second reading of the database's check;
 * - the dates: the due date not before the issue date, and a credit sale's due date (FAN04), the
 *   issue date inside the numbering resolution's period (FAD09a);
 * - the buyer: a natural person identified (FAK61), a NIT with its check digit (FAK24).
 *
 * FAD09c (issued more than 10 days ago) is not checked here: the service stamps the issue date when
 * it first sends a document (DESIGN §12), and a document in doubt must reach DIAN to be settled.
 * Sources and the rule ids' provenance: docs/dian.md, "The DIAN rules checked before sending"; the
 * DIAN stand-in checks the same rules on the XML it receives (sandbox/dian/rules-content.ts).
 * Messages name the field as the web app writes it.
 */
import type { AuthorityRule } from "../kernel/result-codes.ts";
import { NIT_ID_TYPE, nitCheckDigit } from "./check-digit.ts";
import { isCurrency, isDepartment, isMunicipality } from "./code-lists.ts";

/** A rule of DIAN's the document breaks: its id, and our sentence naming the field. */
export interface RuleProblem {
  rule: string;
  message: string;
}

/** What the checks read of an invoice (`einv_private.invoice_payload`'s fields). */
export interface InvoiceRuleInput {
  issue_date: string;
  due_date: string | null;
  payment_form: string;
  currency: string;
  exchange_rate?: number | null;
  exchange_rate_date?: string | null;
  buyer_id_type: string;
  buyer_id_number: string | null;
  buyer_check_digit: string | null;
  /** AdditionalAccountID as the payload reads it: 1 jurídica, 2 natural. */
  buyer_person_type?: string | null;
  buyer_city_code: string | null;
  buyer_department_code?: string | null;
  buyer_country_code?: string;
  company: {
    city_code: string;
    department_code: string;
    resolution_date: string | null;
    resolution_valid_until: string | null;
  };
}

/**
 * What is wrong with a buyer's check digit (FAK24: DIAN computes it for a NIT, type 31, and a
 * missing one counts as wrong), or null.
 */
export function buyerCheckDigitProblem(buyer: {
  buyer_id_type: string;
  buyer_id_number: string | null;
  buyer_check_digit: string | null;
}): string | null {
  const { buyer_id_type: type, buyer_id_number: nit, buyer_check_digit: given } = buyer;
  if (type !== NIT_ID_TYPE || !nit) return null;
  const expected = nitCheckDigit(nit);
  if (expected === null) return `buyer_id_number ${nit} is not a NIT (1 to 15 digits)`;
  if (!given) return `buyer_check_digit is missing; the check digit of NIT ${nit} is ${expected}`;
  if (given !== expected) {
    return `buyer_check_digit ${given} is wrong; the check digit of NIT ${nit} is ${expected}`;
  }
  return null;
}

/** The message of a due date before the issue date: the database's payload words it the same way. */
export const dueBeforeIssue = (due: string, issued: string) =>
  `due_date ${due} is before the issue date ${issued}`;

function dateProblems(doc: InvoiceRuleInput): RuleProblem[] {
  const out: RuleProblem[] = [];
  if (doc.payment_form === "2" && !doc.due_date) {
    out.push({ rule: "FAN04", message: "due_date is missing: a credit sale (payment_form 2) has one" });
  }
  if (doc.due_date && doc.due_date < doc.issue_date) {
    out.push({ rule: "FAN04", message: dueBeforeIssue(doc.due_date, doc.issue_date) });
  }
  const { resolution_date: from, resolution_valid_until: until } = doc.company;
  if (from && doc.issue_date < from) {
    out.push({
      rule: "FAD09a",
      message: `the numbering resolution starts on ${from}, after the issue date ${doc.issue_date}`,
    });
  }
  if (until && doc.issue_date > until) {
    out.push({
      rule: "FAD09a",
      message: `the numbering resolution expired on ${until}, before the issue date ${doc.issue_date}`,
    });
  }
  return out;
}

function currencyProblems(doc: InvoiceRuleInput): RuleProblem[] {
  if (doc.currency === "COP") return [];
  const out: RuleProblem[] = [];
  if (!isCurrency(doc.currency)) {
    out.push({
      rule: "FAR04",
      message: `currency ${doc.currency} is not one of DIAN's currencies (ISO 4217)`,
    });
  }
  if (doc.exchange_rate == null) {
    out.push({
      rule: "FAR06",
      message: `exchange_rate is missing: an invoice in ${doc.currency} declares it`,
    });
  }
  if (!doc.exchange_rate_date) {
    out.push({
      rule: "FAR07",
      message: `exchange_rate_date is missing: an invoice in ${doc.currency} declares it`,
    });
  }
  return out;
}

function placeProblems(doc: InvoiceRuleInput): RuleProblem[] {
  const out: RuleProblem[] = [];
  const { city_code: city, department_code: department } = doc.company;
  if (!isMunicipality(city)) {
    out.push({ rule: "FAJ09", message: `the company's city_code ${city} is not a DIVIPOLA municipality` });
  }
  if (!isDepartment(department)) {
    out.push({
      rule: "FAJ12",
      message: `the company's department_code ${department} is not a DIVIPOLA department`,
    });
  }
  if ((doc.buyer_country_code ?? "CO") !== "CO") return out;
  if (doc.buyer_city_code && !isMunicipality(doc.buyer_city_code)) {
    out.push({
      rule: "FAK09",
      message: `buyer_city_code ${doc.buyer_city_code} is not a DIVIPOLA municipality`,
    });
  }
  if (doc.buyer_department_code && !isDepartment(doc.buyer_department_code)) {
    out.push({
      rule: "FAK12",
      message: `buyer_department_code ${doc.buyer_department_code} is not a DIVIPOLA department`,
    });
  }
  return out;
}

function buyerProblems(doc: InvoiceRuleInput): RuleProblem[] {
  const out: RuleProblem[] = [];
  if (doc.buyer_person_type === "2" && !doc.buyer_id_number) {
    out.push({ rule: "FAK61", message: "buyer_id_number is missing" });
  }
  const digit = buyerCheckDigitProblem(doc);
  if (digit) out.push({ rule: "FAK24", message: digit });
  return out;
}

/** Every rule of DIAN's the invoice breaks that the database lets through, in the document's order. */
export function invoiceRuleProblems(doc: InvoiceRuleInput): RuleProblem[] {
  return [...dateProblems(doc), ...currencyProblems(doc), ...placeProblems(doc), ...buyerProblems(doc)];
}

/** The problems as the API answers them (`authority_rules`): rejections, each rule with our sentence. */
export function asAuthorityRules(problems: RuleProblem[]): AuthorityRule[] {
  return problems.map(({ rule, message }) => ({ rule, kind: "rechazo", message }));
}
