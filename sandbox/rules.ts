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
  const sumLines = centsToMoney(sum(doc.lines.map((line) => line.line_extension)));
  if (doc.totals.subtotal !== sumLines) {
    errors.push({
      kind: "rechazo",
      code: "FAU04",
      message: `El subtotal (${doc.totals.subtotal}) no es igual a la suma de los valores de las líneas (${sumLines}).`,
    });
  }
  const sumTaxes = centsToMoney(sum(doc.lines.map((line) => line.tax_amount)));
  if (doc.totals.tax_total !== sumTaxes) {
    errors.push({
      kind: "rechazo",
      code: "FAU06",
      message: `El total de impuestos (${doc.totals.tax_total}) no es igual a la suma de los impuestos de las líneas (${sumTaxes}).`,
    });
  }
  const expectedTotal = centsToMoney(moneyToCents(doc.totals.subtotal) + moneyToCents(doc.totals.tax_total));
  if (doc.totals.total !== expectedTotal) {
    errors.push({
      kind: "rechazo",
      code: "FAU14",
      message: `El total a pagar (${doc.totals.total}) no es igual al subtotal más impuestos (${expectedTotal}).`,
    });
  }
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

/** The per-scheme amounts DIAN's CUFE and QR use, summed from the lines. */
export function dianAmounts(doc: SubmitDocumentRequest): {
  iva: Money;
  inc: Money;
  other: Money;
} {
  const byCode = (code: string) => sum(doc.lines.filter((l) => l.tax_code === code).map((l) => l.tax_amount));
  const iva = byCode("01");
  const inc = byCode("04");
  const zz = byCode("ZZ");
  return { iva: centsToMoney(iva), inc: centsToMoney(inc), other: centsToMoney(inc + zz) };
}

/**
 * The authority code and QR text of a document, as the authority would stamp it: the CUFE (technical
 * key) of an invoice, the CUDE (software PIN) of a note.
 */
export async function stamp(doc: SubmitDocumentRequest): Promise<{ cufe: string; qrText: string }> {
  const environment: DianEnvironment = doc.environment;
  const { iva, inc, other } = dianAmounts(doc);
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
  // Our lines carry no ICA (scheme 03).
  const amounts = { ...common, iva, inc, ica: "0.00" };
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
