/**
 * What a received document says beyond what the CUFE and the numbering need (./document.ts): the
 * taxes and withholdings with their subtotals, the discounts and charges, the payment, the exchange
 * rate, the parties' fiscal profile and addresses, the lines. Read from the DOM by namespace and
 * local name, as text — never through our builder — so the rules (./rules-amounts.ts,
 * ./rules-content.ts) judge what the XML says, the way DIAN's XPath rules do.
 */
import { child, childrenNamed, type Element, elements, textOf } from "./xml-read.ts";

const CAC = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2";
const CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2";

/** A cbc:/cac: path's first element. */
function at(start: Element | undefined, ...steps: string[]): Element | undefined {
  let node = start;
  for (const step of steps) {
    const [prefix, local] = step.split(":") as [string, string];
    node = child(node, prefix === "cac" ? CAC : CBC, local);
  }
  return node;
}

const cbc = (parent: Element | undefined, local: string) => textOf(child(parent, CBC, local));
const all = (parent: Element | undefined, local: string) => (parent ? childrenNamed(parent, CAC, local) : []);

export interface Subtotal {
  taxable?: string;
  amount?: string;
  /** TaxCategory/Percent, or the subtotal's own Percent. */
  percent?: string;
  baseUnitMeasure?: string;
  unitCode?: string;
  perUnitAmount?: string;
  schemeId: string;
  schemeName: string;
}

export interface TaxGroup {
  amount?: string;
  subtotals: Subtotal[];
}

export interface AllowanceCharge {
  charge: string;
  reasonCode?: string;
  multiplier?: string;
  amount?: string;
  baseAmount?: string;
}

export interface Address {
  municipality?: string;
  department?: string;
  country?: string;
}

export interface PartyContent {
  additionalAccountId?: string;
  /** CompanyID's attributes (PartyTaxScheme): the identification type, and the id itself. */
  idType?: string;
  id?: string;
  hasPartyIdentification: boolean;
  taxLevelCode?: string;
  physical?: Address;
  registration?: Address;
}

export interface LineContent {
  id: string;
  quantity?: string;
  baseQuantity?: string;
  lineExtension?: string;
  price?: string;
  allowanceCharges: AllowanceCharge[];
  taxTotals: TaxGroup[];
}

export interface DocumentContent {
  currency?: string;
  dueDate?: string;
  supplier: PartyContent;
  customer: PartyContent;
  paymentMeans: { id?: string; code?: string; dueDate?: string }[];
  allowanceCharges: AllowanceCharge[];
  exchangeRate?: {
    source?: string;
    target?: string;
    targetBaseRate?: string;
    rate?: string;
    date?: string;
  };
  taxTotals: TaxGroup[];
  withholdings: TaxGroup[];
  lines: LineContent[];
  /** The local names of the amounts (anything with a currencyID) and percents written below zero (VLR01). */
  negativeValues: string[];
}

function subtotal(element: Element): Subtotal {
  const category = at(element, "cac:TaxCategory");
  const scheme = at(category, "cac:TaxScheme");
  const measure = child(element, CBC, "BaseUnitMeasure");
  return {
    taxable: cbc(element, "TaxableAmount"),
    amount: cbc(element, "TaxAmount"),
    percent: cbc(category, "Percent") ?? cbc(element, "Percent"),
    baseUnitMeasure: textOf(measure),
    unitCode: measure?.getAttribute("unitCode") ?? undefined,
    perUnitAmount: cbc(element, "PerUnitAmount"),
    schemeId: cbc(scheme, "ID") ?? "",
    schemeName: cbc(scheme, "Name") ?? "",
  };
}

const taxGroups = (parent: Element, local: "TaxTotal" | "WithholdingTaxTotal"): TaxGroup[] =>
  all(parent, local).map((group) => ({
    amount: cbc(group, "TaxAmount"),
    subtotals: all(group, "TaxSubtotal").map(subtotal),
  }));

const allowanceCharges = (parent: Element): AllowanceCharge[] =>
  all(parent, "AllowanceCharge").map((ac) => ({
    charge: cbc(ac, "ChargeIndicator") ?? "",
    reasonCode: cbc(ac, "AllowanceChargeReasonCode"),
    multiplier: cbc(ac, "MultiplierFactorNumeric"),
    amount: cbc(ac, "Amount"),
    baseAmount: cbc(ac, "BaseAmount"),
  }));

function address(element: Element | undefined): Address | undefined {
  if (!element) return undefined;
  return {
    municipality: cbc(element, "ID"),
    department: cbc(element, "CountrySubentityCode"),
    country: cbc(at(element, "cac:Country"), "IdentificationCode"),
  };
}

function party(root: Element, group: string): PartyContent {
  const outer = at(root, `cac:${group}`);
  const inner = at(outer, "cac:Party");
  const scheme = at(inner, "cac:PartyTaxScheme");
  const companyId = child(scheme, CBC, "CompanyID");
  return {
    additionalAccountId: cbc(outer, "AdditionalAccountID"),
    idType: companyId?.getAttribute("schemeName") ?? undefined,
    id: textOf(companyId),
    hasPartyIdentification: at(inner, "cac:PartyIdentification", "cbc:ID") !== undefined,
    taxLevelCode: cbc(scheme, "TaxLevelCode"),
    physical: address(at(inner, "cac:PhysicalLocation", "cac:Address")),
    registration: address(at(scheme, "cac:RegistrationAddress")),
  };
}

/** What VLR01 reads: the amounts and the percentages. */
const PERCENTS = new Set(["Percent", "MultiplierFactorNumeric", "CalculationRate"]);

/** The elements under `root` holding an amount or a percentage written below zero. */
function negativeValues(root: Element): string[] {
  const found: string[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Element;
    if (
      (node.hasAttribute("currencyID") || PERCENTS.has(node.localName ?? "")) &&
      /^\s*-/.test(textOf(node) ?? "")
    ) {
      found.push(node.localName ?? "");
    }
    stack.push(...elements(node));
  }
  return found;
}

/** The content of an Invoice or CreditNote (`lineName`: InvoiceLine or CreditNoteLine). */
export function readContent(root: Element, lineName: string, quantityName: string): DocumentContent {
  const exchange = at(root, "cac:PaymentExchangeRate");
  return {
    currency: cbc(root, "DocumentCurrencyCode"),
    dueDate: cbc(root, "DueDate"),
    supplier: party(root, "AccountingSupplierParty"),
    customer: party(root, "AccountingCustomerParty"),
    paymentMeans: all(root, "PaymentMeans").map((means) => ({
      id: cbc(means, "ID"),
      code: cbc(means, "PaymentMeansCode"),
      dueDate: cbc(means, "PaymentDueDate"),
    })),
    allowanceCharges: allowanceCharges(root),
    exchangeRate: exchange && {
      source: cbc(exchange, "SourceCurrencyCode"),
      target: cbc(exchange, "TargetCurrencyCode"),
      targetBaseRate: cbc(exchange, "TargetCurrencyBaseRate"),
      rate: cbc(exchange, "CalculationRate"),
      date: cbc(exchange, "Date"),
    },
    taxTotals: taxGroups(root, "TaxTotal"),
    withholdings: taxGroups(root, "WithholdingTaxTotal"),
    lines: all(root, lineName).map((line) => ({
      id: cbc(line, "ID") ?? "",
      quantity: cbc(line, quantityName),
      baseQuantity: cbc(at(line, "cac:Price"), "BaseQuantity"),
      lineExtension: cbc(line, "LineExtensionAmount"),
      price: cbc(at(line, "cac:Price"), "PriceAmount"),
      allowanceCharges: allowanceCharges(line),
      taxTotals: taxGroups(line, "TaxTotal"),
    })),
    negativeValues: negativeValues(root),
  };
}
