/**
 * The sandbox's authority: which documents it accepts, rejects or leaves pending (docs/sandbox.md
 * lists the same rules), and the CUFE and QR text of an accepted one. Rule codes follow DIAN's
 * naming by group (FAJ buyer, FAU totals), but their meaning is the sandbox's own.
 */
import { NIT_ID_TYPE, nitCheckDigit } from "../shared/co/check-digit.ts";
import { computeCude, computeCufe, type DianEnvironment, dianQrText } from "../shared/co/cufe.ts";
import { finalConsumerProblems } from "../shared/co/final-consumer.ts";
import {
  centsToMoney,
  type Money,
  moneyToCents,
  type RuleViolation,
  type SubmitDocumentRequest,
} from "../shared/ports/providers/protocol.ts";

/**
 * A buyer id the sandbox treats as unknown to the RUT: always rejected. (DIAN's final consumer,
 * `222222222222`, is a valid buyer: see shared/co/final-consumer.ts.)
 */
export const REJECTED_BUYER_ID = "999999999";
/** A buyer name containing this word (any case) is rejected. */
export const REJECT_NAME_MARKER = "RECHAZAR";
/** A buyer name containing this word (any case) adds a notification (`RUT01`) that does not reject. */
export const NOTIFY_NAME_MARKER = "NOTIFICAR";
/** DIAN's notification that the RUT status check was unavailable. */
export const NOTIFICATION_RULE = "RUT01";
/** A line description containing this word (any case) leaves the document pending. */
export const PENDING_MARKER = "PENDIENTE";
/** A note (credit or debit) whose reason contains this word (any case) is rejected. */
export const REJECT_REASON_MARKER = "RECHAZAR";
/** Rule code of a document whose CUFE was already accepted under another reference. */
export const DUPLICATE_RULE = "90";

export interface Verdict {
  status: "accepted" | "rejected" | "pending";
  errors: RuleViolation[];
}

/**
 * Applies the documented rules; every violated rule is reported, not just the first. A rejection
 * rejects; a notification alone is reported with whatever the document's outcome is.
 */
export function judge(doc: SubmitDocumentRequest): Verdict {
  const errors: RuleViolation[] = [];
  // DIAN's own rules FAJ24 and FAK24: the issuer's and a NIT buyer's check digit (dian/brief.md §4, §5)
  if (doc.issuer.check_digit !== nitCheckDigit(doc.issuer.nit)) {
    errors.push({
      kind: "rechazo",
      code: "FAJ24",
      message: `El dígito de verificación del emisor (${doc.issuer.check_digit ?? ""}) no corresponde al NIT ${doc.issuer.nit}.`,
    });
  }
  if (doc.buyer.id_type === NIT_ID_TYPE && doc.buyer.check_digit !== nitCheckDigit(doc.buyer.id_number)) {
    errors.push({
      kind: "rechazo",
      code: "FAK24",
      message: `El dígito de verificación del adquiriente (${doc.buyer.check_digit ?? ""}) no corresponde al NIT ${doc.buyer.id_number}.`,
    });
  }
  if (doc.buyer.id_number === REJECTED_BUYER_ID) {
    errors.push({
      kind: "rechazo",
      code: "FAJ44b",
      message: `El número de identificación del adquiriente (${REJECTED_BUYER_ID}) no está registrado en el RUT.`,
    });
  }
  for (const problem of finalConsumerProblems(doc.buyer)) {
    errors.push({ kind: "rechazo", code: "FAK61", message: `Consumidor final: ${problem}.` });
  }
  if (doc.buyer.name.toUpperCase().includes(REJECT_NAME_MARKER)) {
    errors.push({
      kind: "rechazo",
      code: "FAJ43b",
      message: "El nombre del adquiriente no coincide con el registrado en el RUT.",
    });
  }
  errors.push(...totalsProblems(doc));
  errors.push(...numberingProblems(doc));
  if (doc.correction?.reason.toUpperCase().includes(REJECT_REASON_MARKER)) {
    const debit = doc.kind === "debit_note";
    errors.push({
      kind: "rechazo",
      code: debit ? "DAJ51" : "CAJ51",
      message: debit
        ? "El motivo de la nota débito no es aceptado para el concepto informado."
        : "El motivo de la nota crédito no es aceptado para el concepto de corrección informado.",
    });
  }
  // DIAN's notifications are reported and never reject on their own (dian/brief.md §1, §5)
  if (doc.buyer.name.toUpperCase().includes(NOTIFY_NAME_MARKER)) {
    errors.push({
      kind: "notificacion",
      code: NOTIFICATION_RULE,
      message: "No fue posible consultar el estado del RUT del adquiriente.",
    });
  }
  if (errors.some((e) => e.kind === "rechazo")) return { status: "rejected", errors };
  const pending = doc.lines.some((line) => line.description.toUpperCase().includes(PENDING_MARKER));
  return { status: pending ? "pending" : "accepted", errors };
}

/**
 * An invoice's number and date against the numbering resolution it carries, as DIAN checks them
 * against the range it authorised (dian/brief.md §5: FAB10b prefix, FAD05d range, FAD09a period):
 * what the sandbox accepts it signs as DIAN mode does, with that resolution (./attached-document.ts).
 */
function numberingProblems(doc: SubmitDocumentRequest): RuleViolation[] {
  const numbering = doc.numbering;
  if (!numbering) return [];
  const problems: RuleViolation[] = [];
  const consecutive = doc.number.startsWith(numbering.prefix)
    ? doc.number.slice(numbering.prefix.length)
    : "";
  if (!/^[0-9]+$/.test(consecutive)) {
    problems.push({
      kind: "rechazo",
      code: "FAB10b",
      message: `El prefijo del número ${doc.number} no corresponde al de la resolución (${numbering.prefix}).`,
    });
  } else if (BigInt(consecutive) < BigInt(numbering.from) || BigInt(consecutive) > BigInt(numbering.to)) {
    problems.push({
      kind: "rechazo",
      code: "FAD05d",
      message: `El número ${doc.number} está fuera del rango autorizado (${numbering.from} a ${numbering.to}).`,
    });
  }
  if (doc.issue_date < numbering.start_date || doc.issue_date > numbering.end_date) {
    problems.push({
      kind: "rechazo",
      code: "FAD09a",
      message: `La fecha de emisión ${doc.issue_date} está fuera de la vigencia de la resolución (${numbering.start_date} a ${numbering.end_date}).`,
    });
  }
  return problems;
}

/** The amounts of the lines' taxes of `code`, in cents. */
function linesTax(doc: SubmitDocumentRequest, code: string): bigint {
  return sum(doc.lines.flatMap((line) => line.taxes.filter((t) => t.code === code).map((t) => t.tax_amount)));
}

/** A rule's code on this kind of document: a credit note's are the invoice's with CA for FA, as DIAN's. */
const ruleCode = (doc: SubmitDocumentRequest, code: string) =>
  doc.kind === "credit_note" ? code.replace(/^FA/, "CA") : code;

/**
 * The totals, read from the lines as DIAN reads them (brief-business §4, §6; rule codes as Vendix
 * transcribes Anexo 1.9): FAU02 LineExtensionAmount, FAU04 TaxExclusiveAmount (the lines'
 * percentage bases), FAU06 TaxInclusiveAmount, FAS02 a scheme's TaxTotal, FAU08 the discounts,
 * FAU14 PayableAmount (advances and withholdings are not subtracted).
 */
function totalsProblems(doc: SubmitDocumentRequest): RuleViolation[] {
  const t = doc.totals;
  const out: RuleViolation[] = [];
  const rule = (code: string, message: string) =>
    out.push({ kind: "rechazo", code: ruleCode(doc, code), message });
  const lines = doc.lines;
  const subtotal = sum(lines.map((l) => l.line_extension));
  if (moneyToCents(t.subtotal) !== subtotal) {
    rule(
      "FAU02",
      `El valor bruto (${t.subtotal}) no es igual a la suma de los valores de las líneas (${centsToMoney(subtotal)}).`,
    );
  }
  const bases = sum(
    lines.flatMap((l) => l.taxes.flatMap((x) => ("taxable_amount" in x ? [x.taxable_amount] : []))),
  );
  if (moneyToCents(t.tax_exclusive_amount) !== bases) {
    rule(
      "FAU04",
      `La base imponible (${t.tax_exclusive_amount}) no es igual a la suma de las bases de las líneas (${centsToMoney(bases)}).`,
    );
  }
  const taxes = sum(lines.map((l) => l.tax_amount));
  if (moneyToCents(t.tax_inclusive_amount) !== subtotal + taxes || moneyToCents(t.tax_total) !== taxes) {
    rule(
      "FAU06",
      `El valor con tributos (${t.tax_inclusive_amount}) no es igual al valor bruto más los tributos de las líneas (${centsToMoney(subtotal + taxes)}).`,
    );
  }
  const codes = new Set(lines.flatMap((l) => l.taxes.map((x) => x.code)));
  const reported = new Set(doc.tax_totals.map((x) => x.code));
  for (const code of new Set([...codes, ...reported])) {
    const total = doc.tax_totals.find((x) => x.code === code);
    if (!total || moneyToCents(total.tax_amount) !== linesTax(doc, code)) {
      rule(
        "FAS02",
        `El total del tributo ${code} (${total?.tax_amount ?? "no informado"}) no es igual a la suma del tributo en las líneas (${centsToMoney(linesTax(doc, code))}).`,
      );
    }
  }
  const charges = (charge: boolean) =>
    sum((doc.allowance_charges ?? []).filter((a) => a.charge === charge).map((a) => a.amount));
  if (moneyToCents(t.allowance_total_amount ?? "0.00") !== charges(false)) {
    rule(
      "FAU08",
      `El total de descuentos (${t.allowance_total_amount ?? "0.00"}) no es igual a la suma de los descuentos del documento (${centsToMoney(charges(false))}).`,
    );
  }
  const payable =
    moneyToCents(t.tax_inclusive_amount) -
    moneyToCents(t.allowance_total_amount ?? "0.00") +
    moneyToCents(t.charge_total_amount ?? "0.00");
  if (moneyToCents(t.total) !== payable) {
    rule(
      "FAU14",
      `El valor a pagar (${t.total}) no es igual al valor con tributos menos descuentos más cargos (${payable < 0n ? "negativo" : centsToMoney(payable)}).`,
    );
  }
  return out;
}

/** The per-scheme amounts DIAN's CUFE and QR use, summed from the lines: IVA, INC, ICA, and every tax but IVA. */
export function dianAmounts(doc: SubmitDocumentRequest): {
  iva: Money;
  inc: Money;
  ica: Money;
  other: Money;
} {
  const iva = linesTax(doc, "01");
  const all = sum(doc.lines.map((l) => l.tax_amount));
  return {
    iva: centsToMoney(iva),
    inc: centsToMoney(linesTax(doc, "04")),
    ica: centsToMoney(linesTax(doc, "03")),
    other: centsToMoney(all - iva),
  };
}

/**
 * The authority code and QR text of a document, as the authority would stamp it: the CUFE (technical
 * key) of an invoice, the CUDE (software PIN) of a note.
 */
export async function stamp(doc: SubmitDocumentRequest): Promise<{ cufe: string; qrText: string }> {
  const environment: DianEnvironment = doc.environment;
  const { iva, inc, ica, other } = dianAmounts(doc);
  const common = {
    number: doc.number,
    issueDate: doc.issue_date,
    issueTime: doc.issue_time,
    subtotal: doc.totals.subtotal,
    total: doc.totals.total,
    issuerNit: doc.issuer.nit,
    buyerId: doc.buyer.id_number,
    environment,
  };
  const amounts = { ...common, iva, inc, ica };
  const note = doc.kind !== "invoice";
  const cufe = note
    ? await computeCude({ ...amounts, softwarePin: doc.issuer.software_pin ?? "" })
    : await computeCufe({ ...amounts, technicalKey: doc.issuer.technical_key ?? "" });
  const codeLabel = note ? "CUDE" : "CUFE";
  return { cufe, qrText: dianQrText({ ...common, iva, otherTaxes: other, cufe, codeLabel }) };
}

function sum(amounts: Money[]): bigint {
  return amounts.reduce((total, amount) => total + moneyToCents(amount), 0n);
}
