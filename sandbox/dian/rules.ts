/**
 * DIAN's content rules on a received document, after its signature (brief §5, §8 step 7). Each rule
 * names its source: [D] the rule's code and message in DIAN's validator (Plugin `Common/Validator.cs`:
 * `ValidateCufe`, `ValidateNit`, `ValidateSoftware`, `ValidateNumberingRange`), [V] the Anexo 1.9 rows
 * as transcribed with their PDF lines (brief's secondary source). A credit note's codes are the
 * invoice's with `CA` for `FA`, a debit note's with `DA` ([D] sets CAD06, CAJ24, CAK24, CAB24b,
 * CAB27b the same way; brief §5: "Credit notes use CA* codes and debit notes DA*, mirroring FA*").
 *
 * Everything is recomputed here without our builder's code: the CUFE/CUDE as DIAN's ValidateCufe
 * concatenates it (amounts truncated to two decimals, a missing tax as 0.00, SHA-384 compared in
 * lowercase), the check digit with DIAN's weights (brief §4), the SoftwareSecurityCode as
 * SHA-384(SoftwareID + PIN + number).
 */
import { createHash } from "node:crypto";
import { cents } from "./decimal.ts";
import type { ReceivedDocument } from "./document.ts";
import { onePerRule, type RuleFinding, type RuleSettings, ruleId } from "./finding.ts";
import { type DianRegistry, findIssuer, findSoftware } from "./registry.ts";
import { amountFindings } from "./rules-amounts.ts";
import { declaredFindings } from "./rules-content.ts";

export type { RuleFinding, RuleSettings };

const sha384 = (text: string) => createHash("sha384").update(text, "utf8").digest("hex");

/** DIAN's `ToString("F2")` of a truncated amount; "0.00" for a missing one. */
function f2(value: string | undefined): string {
  const c = value ? cents(value) : 0n;
  if (c === null) return value ?? "";
  const abs = c < 0n ? -c : c;
  return `${c < 0n ? "-" : ""}${abs / 100n}.${String(abs % 100n).padStart(2, "0")}`;
}

/** DIAN's check digit of a NIT (brief §4; [D] `ValidateDigitCode`). */
export function checkDigit(nit: string): string {
  const weights = [3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71];
  let sum = 0;
  for (let i = 0; i < nit.length; i++) sum += Number(nit[nit.length - 1 - i]) * (weights[i] ?? 0);
  const r = sum % 11;
  return String(r <= 1 ? r : 11 - r);
}

const code = ruleId;

/** The key of the CUFE (ClTec) or CUDE (the software's PIN), as DIAN picks it ([D] ValidateCufe). */
function authorityKey(doc: ReceivedDocument, registry: DianRegistry): string | undefined {
  // [D] ValidateCufe: the software's PIN for the CUDE of types 03, 05, 91, 92, 96
  if (doc.kind !== "invoice") return findSoftware(registry, doc.softwareId)?.pin;
  if (registry.environment === "habilitacion") return registry.testTechnicalKey;
  const prefix = doc.control.prefix ?? "";
  return findIssuer(registry, doc.supplier.id)?.ranges.find(
    (r) => r.prefix === prefix && r.resolutionNumber === doc.control.invoiceAuthorization,
  )?.technicalKey;
}

function authorityCodeFinding(doc: ReceivedDocument, registry: DianRegistry): RuleFinding | null {
  const data = [
    doc.id,
    doc.issueDate,
    doc.issueTime,
    f2(doc.totals.lineExtension),
    "01",
    f2(doc.taxBySchema.get("01")),
    "04",
    f2(doc.taxBySchema.get("04")),
    "03",
    f2(doc.taxBySchema.get("03")),
    f2(doc.totals.payable),
    doc.supplier.id,
    doc.customer.id,
    authorityKey(doc, registry) ?? "",
    doc.profileExecutionId,
  ].join("");
  if (doc.uuid.toLowerCase() === sha384(data)) return null;
  return doc.kind === "invoice"
    ? { code: "FAD06", message: "Valor del CUFE no está calculado correctamente." }
    : { code: code(doc, "FAD06"), message: "Valor del CUDE no está calculado correctamente." };
}

function checkDigitFindings(doc: ReceivedDocument): RuleFinding[] {
  const out: RuleFinding[] = [];
  // [D] ValidateNit: a missing DV counts as 11, which is never right
  if (doc.supplier.type === "31" && checkDigit(doc.supplier.id) !== (doc.supplier.dv || "11")) {
    out.push({
      code: code(doc, "FAJ24"),
      message: "DV del NIT del emsior del documento no está correctamente calculado",
    });
  }
  if (doc.customer.type === "31" && checkDigit(doc.customer.id) !== (doc.customer.dv || "11")) {
    out.push({ code: code(doc, "FAK24"), message: "DV no corresponde al NIT informado" });
  }
  return out;
}

function softwareFindings(doc: ReceivedDocument, registry: DianRegistry): RuleFinding[] {
  const software = findSoftware(registry, doc.softwareId);
  if (!software) {
    return [
      {
        code: code(doc, "FAB24b"),
        message:
          "El identificador del software asignado cuando el software se activa en el Sistema de Facturación Electrónica no corresponde a un software autorizado para este OFE.",
      },
    ];
  }
  if (software.active === false) {
    return [
      { code: code(doc, "FAB24c"), message: "Identificador del software informado se encuentra inactivo." },
    ];
  }
  if (doc.securityCode.toLowerCase() !== sha384(`${software.id}${software.pin}${doc.id}`)) {
    return [
      { code: code(doc, "FAB27b"), message: "Huella no corresponde a un software autorizado para este OFE." },
    ];
  }
  return [];
}

/** The numbering range's rules, invoices only ([D] ValidateNumberingRange; FAD05d, FAD09a [V]). */
function rangeFindings(doc: ReceivedDocument, registry: DianRegistry): RuleFinding[] {
  if (doc.kind !== "invoice") return [];
  const c = doc.control;
  const ranges = findIssuer(registry, doc.supplier.id)?.ranges ?? [];
  if (ranges.length === 0 || !c.invoiceAuthorization) {
    return [{ code: "FAD05e", message: "Número de factura no existe para el número de autorización." }];
  }
  const range = ranges.find((r) => r.resolutionNumber === c.invoiceAuthorization);
  if (!range) {
    return [
      {
        code: "FAB05b",
        message:
          "Número de la resolución que autoriza la numeración no corresponde a un número de resolución de este contribuyente emisor para este Proveedor de Autorización.",
      },
    ];
  }
  const out: RuleFinding[] = [];
  if (registry.environment === "produccion" && range.softwareId !== doc.softwareId) {
    out.push({
      code: "FAB05c",
      message: "El indentificador del software no corresponde al rango de numeración informado",
    });
  }
  if (range.validFrom !== c.startDate) {
    out.push({
      code: "FAB07b",
      message:
        "Fecha inicial del rango de numeración informado no corresponde a la fecha inicial de los rangos vigente para el contribuyente.",
    });
  }
  if (range.validTo !== c.endDate) {
    out.push({
      code: "FAB08b",
      message:
        "Fecha final del rango de numeración informado no corresponde a la fecha final de los rangos vigente para el contribuyente.",
    });
  }
  const prefix = c.prefix ?? "";
  if (range.prefix !== prefix || !doc.id.startsWith(range.prefix)) {
    out.push({
      code: "FAB10b",
      message: "El prefijo no corresponde al prefijo de la autorización de numeración",
    });
  }
  if (range.from !== c.from) {
    out.push({
      code: "FAB11b",
      message:
        "Valor inicial del rango de numeración informado no corresponde a un valor inicial de los rangos vigente para el contribuyente emisor.",
    });
  }
  if (range.to !== c.to) {
    out.push({
      code: "FAB12b",
      message:
        "Valor final del rango de numeración informado no corresponde a un valor final de los rangos vigentes para el contribuyente emisor.",
    });
  }
  const consecutive = doc.id.startsWith(range.prefix) ? doc.id.slice(range.prefix.length) : "";
  if (
    !/^\d{1,18}$/.test(consecutive) ||
    BigInt(consecutive) < BigInt(range.from) ||
    BigInt(consecutive) > BigInt(range.to)
  ) {
    out.push({
      code: "FAD05d",
      message: "Número de factura no está contenido en el rango de numeración autorizado",
    });
  }
  if (doc.issueDate < range.validFrom) {
    out.push({
      code: "FAD09a",
      message: "Fecha de emisión anterior a la fecha de inicio de la autorización de la numeración",
    });
  }
  return out;
}

/** FAD09e [V]: the issue date is the signing time's date, in Colombia (UTC−5). */
function signingDateFinding(doc: ReceivedDocument): RuleFinding | null {
  const instant = Date.parse(doc.signingTime);
  const date = Number.isNaN(instant) ? "" : new Date(instant - 5 * 3_600_000).toISOString().slice(0, 10);
  if (date === doc.issueDate) return null;
  return doc.kind === "invoice"
    ? {
        code: "FAD09e",
        message: "La fecha de generación de la factura es diferente a la fecha de firma de la factura",
      }
    : {
        code: code(doc, "FAD09e"),
        message: `La fecha de generación de la ${doc.kind === "debit_note" ? "ND" : "NC"} es diferente a la fecha de firma de la ${doc.kind === "debit_note" ? "ND" : "NC"}`,
      };
}

/** FAJ43b [F]: the issuer's name differs from the RUT's (a notification). */
function rutFinding(doc: ReceivedDocument, registry: DianRegistry): RuleFinding | null {
  const rutName = findIssuer(registry, doc.supplier.id)?.rutName;
  if (!rutName || rutName.trim().toLowerCase() === doc.supplier.name.trim().toLowerCase()) return null;
  return {
    code: code(doc, "FAJ43b"),
    message: "Nombre informado No corresponde al registrado en el RUT con respecto al Nit suminstrado.",
    notification: true,
  };
}

/**
 * Every content rule's finding, rejections and notifications, in DIAN's reporting order, each rule
 * once: the software, the CUFE, the check digits, the numbering, the dates, the arithmetic
 * (./rules-amounts.ts), what the document declares (./rules-content.ts), the RUT.
 */
export function contentFindings(
  doc: ReceivedDocument,
  registry: DianRegistry,
  settings: RuleSettings,
): RuleFinding[] {
  return onePerRule([
    ...softwareFindings(doc, registry),
    authorityCodeFinding(doc, registry),
    ...checkDigitFindings(doc),
    ...rangeFindings(doc, registry),
    signingDateFinding(doc),
    ...amountFindings(doc, settings),
    ...declaredFindings(doc, settings),
    rutFinding(doc, registry),
  ]);
}
