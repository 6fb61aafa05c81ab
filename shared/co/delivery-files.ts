/**
 * The names of the files a Colombian buyer receives: the AttachedDocument XML and the PDF, inside
 * one ZIP.
 *
 * Source followed: DIAN's Anexo técnico de Factura Electrónica de Venta v1.9 (Resolución 000165 de
 * 2023), its naming of the files ("nombre de los archivos"): `<prefix><nnnnnnnnnn><ppp><aa><dddddddd>`
 * — prefix `fv` for an invoice's XML, `nc` for a credit note's, `ad` for the AttachedDocument and `z`
 * for the ZIP; `nnnnnnnnnn` the issuer's NIT without its check digit, left-padded with zeros to 10;
 * `ppp` the technology provider's code, `000` for the issuer's own software; `aa` the last two digits
 * of the year; `dddddddd` an 8-character hexadecimal consecutive of the files the issuer sends, which
 * is not the document's number. Odoo 19's l10n_co_dian reads it the same way for the files of
 * commercial events (`_l10n_co_dian_get_commercial_event_document_filename` in
 * models/account_move.py: prefix, NIT.zfill(10), "000", "%y", an 8-digit hex counter).
 *
 * Our choices within it: `ppp` is `000` (this service, the issuer's software, builds the ZIP, not the
 * provider); the consecutive and its year are the delivery's package (`deliveries.package_year`,
 * `package_number`): the sequence of packages sent under the issuer's NIT in that year, allocated by
 * the database when the delivery is begun (supabase/migrations/…_documents.sql), so two documents —
 * an invoice and a credit note, `FE1` and `FV1` of one issuer, or the documents of two organizations
 * that issue under one NIT — never share a name. A retry of a delivery
 * resends the same package and keeps its name; a new delivery of the same document is a new package.
 * The PDF takes the XML's name with `.pdf` (the Anexo names no PDF). Hex digits are lowercase.
 */

export interface DianDeliveryFiles {
  /** `ad<NIT10>000<aa><hex8>.xml` */
  xml: string;
  /** `ad<NIT10>000<aa><hex8>.pdf` */
  pdf: string;
  /** `z<NIT10>000<aa><hex8>.zip` */
  zip: string;
}

/** The technology provider's code for files the issuer's own software makes. */
const OWN_SOFTWARE = "000";

/** The largest consecutive the 8 hexadecimal characters hold. */
export const MAX_CONSECUTIVE = 0xffff_ffff;

/** The package a delivery sends: its year and the issuer's consecutive in it. */
export interface DeliveryPackage {
  /** Four digits. */
  year: number;
  /** 1 to MAX_CONSECUTIVE. */
  consecutive: number;
}

export function dianDeliveryFiles(input: {
  /** The issuer's NIT without the check digit. */
  issuerNit: string;
  package: DeliveryPackage;
}): DianDeliveryFiles {
  const stem = dianFileStem(input.issuerNit, input.package);
  return { xml: `ad${stem}.xml`, pdf: `ad${stem}.pdf`, zip: `z${stem}.zip` };
}

/**
 * The part of the Anexo's file names after the prefix: `<NIT10>000<aa><hex8>`. Throws a RangeError
 * for a year or consecutive out of range.
 */
export function dianFileStem(issuerNit: string, pkg: DeliveryPackage): string {
  const { year, consecutive } = pkg;
  if (!Number.isInteger(consecutive) || consecutive < 1 || consecutive > MAX_CONSECUTIVE) {
    throw new RangeError(`a package consecutive is 1 to ${MAX_CONSECUTIVE}, not ${consecutive}`);
  }
  if (!Number.isInteger(year) || year < 2000 || year > 2099) {
    throw new RangeError(`a package year is 2000 to 2099, not ${year}`);
  }
  const nit = issuerNit.replace(/\D/g, "").padStart(10, "0");
  return `${nit}${OWN_SOFTWARE}${String(year % 100).padStart(2, "0")}${consecutive.toString(16).padStart(8, "0")}`;
}
