/**
 * What the DIAN document builder takes: the very document our provider protocol submits
 * (`SubmitDocumentRequest`, already checked by its schema) plus what only DIAN mode knows — the
 * software DIAN registered (its id and PIN, and who provides it) and, for invoices, the numbering
 * resolution the number belongs to. The PIN is a secret: it feeds the SoftwareSecurityCode and a
 * credit note's CUDE and is never written anywhere else.
 */
import { z } from "zod";
import type { SubmitDocumentRequest } from "../../ports/providers/protocol.ts";

const digits = (min: number, max: number) =>
  z.string().regex(new RegExp(`^[0-9]{${min},${max}}$`), `expected ${min} to ${max} digits`);
const DATE = z.iso.date();

/** The software DIAN registered for the issuer (software propio) or for its provider. */
export const DianSoftware = z.object({
  /** SoftwareID, as DIAN's software registration shows it (a UUID for software propio). */
  id: z.string().trim().min(1).max(100),
  /** The software's PIN, chosen at registration: a secret. */
  pin: z.string().trim().min(1).max(100),
  /** The NIT (without DV) of whoever provides the software; omitted: the issuer's own (software propio). */
  provider_nit: digits(5, 15).optional(),
});
export type DianSoftware = z.infer<typeof DianSoftware>;

/** The numbering resolution an invoice's number falls under (DIAN's InvoiceControl). */
export const NumberingResolution = z
  .object({
    /** InvoiceAuthorization: the resolution's number, e.g. 18760000001. */
    number: digits(1, 20),
    start_date: DATE,
    end_date: DATE,
    /** The range's prefix, letters and digits, up to four; "" when the range has none. */
    prefix: z.string().regex(/^[A-Z0-9]{0,4}$/, "expected up to four capital letters or digits"),
    from: digits(1, 15),
    to: digits(1, 15),
  })
  .refine((r) => BigInt(r.from) <= BigInt(r.to), { message: "from must not exceed to", path: ["to"] })
  .refine((r) => r.start_date <= r.end_date, {
    message: "start_date must not follow end_date",
    path: ["end_date"],
  });
export type NumberingResolution = z.infer<typeof NumberingResolution>;

/** DIAN mode's additions to a submitted document. */
export const DianMode = z.object({
  software: DianSoftware,
  /** Required for invoices, never given for notes (DIAN's InvoiceControl is the invoice's). */
  resolution: NumberingResolution.optional(),
});
export type DianMode = z.infer<typeof DianMode>;

/** The builder's input: the protocol's document and DIAN mode's additions. */
export interface DianDocumentInput {
  document: SubmitDocumentRequest;
  dian: DianMode;
}

/** Why `input` cannot be built into a DIAN document, or null: the rules that tie the two parts together. */
export function dianInputProblem(input: DianDocumentInput): string | null {
  const parsed = DianMode.safeParse(input.dian);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `DIAN mode's ${issue?.path.join(".") || "settings"}: ${issue?.message ?? "invalid"}`;
  }
  const { document } = input;
  const dian = parsed.data;
  if (document.kind === "invoice") {
    const resolution = dian.resolution;
    if (!resolution) return "an invoice needs its numbering resolution";
    if (!document.issuer.technical_key) return "an invoice needs the range's technical key";
    if (!document.number.startsWith(resolution.prefix)) {
      return `the number ${document.number} does not carry the resolution's prefix "${resolution.prefix}"`;
    }
    const consecutive = document.number.slice(resolution.prefix.length);
    if (!/^[0-9]+$/.test(consecutive))
      return `the number ${document.number} is not the prefix and a consecutive`;
    const n = BigInt(consecutive);
    if (n < BigInt(resolution.from) || n > BigInt(resolution.to)) {
      return `the number ${document.number} is outside the resolution's range ${resolution.from}–${resolution.to}`;
    }
    if (document.issue_date < resolution.start_date || document.issue_date > resolution.end_date) {
      return `the issue date ${document.issue_date} is outside the resolution's period`;
    }
    return null;
  }
  const noun = document.kind === "debit_note" ? "a debit note" : "a credit note";
  if (dian.resolution) return `${noun} carries no numbering resolution`;
  if (!document.billing_reference || !document.correction) return `${noun} needs the invoice it corrects`;
  return null;
}
