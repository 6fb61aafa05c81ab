/**
 * The names of the files a Colombian buyer receives: the AttachedDocument XML and the PDF, inside
 * one ZIP.
 *
 * Source followed: DIAN's Anexo técnico de Factura Electrónica de Venta v1.9 (Resolución 000165 de
 * 2023), its naming of the files ("nombre de los archivos"): `<prefix><nnnnnnnnnn><ppp><aa><dddddddd>`
 * — prefix `ad` for the AttachedDocument and `z` for the ZIP; `nnnnnnnnnn` the issuer's NIT without
 * its check digit, left-padded with zeros to 10; `ppp` the technology provider's code, `000` for the
 * issuer's own software; `aa` the last two digits of the year; `dddddddd` an 8-digit hexadecimal
 * consecutive. Odoo 19's l10n_co_dian reads it the same way for the files of commercial events
 * (`_l10n_co_dian_get_commercial_event_document_filename` in models/account_move.py: prefix,
 * NIT.zfill(10), "000", "%y", an 8-digit hex counter), but names the invoice's AttachedDocument ZIP
 * after the invoice's number (`_l10n_co_dian_get_attached_document_filename`). The sources disagree
 * there; we follow the Anexo's pattern.
 *
 * Our choices within it: `ppp` is `000` (this service, the issuer's software, builds the ZIP, not the
 * provider); `aa` is the invoice's issue year; the consecutive is the invoice's own consecutive (the
 * digits that end its number, which DIAN's numbering range already keeps unique for the issuer) in
 * hexadecimal, so every delivery of one invoice carries the same names. The PDF takes the XML's name
 * with `.pdf` (the Anexo names no PDF).
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

export function dianDeliveryFiles(input: {
  /** The issuer's NIT without the check digit. */
  issuerNit: string;
  /** The document's number, prefix included ("SETP990000001"). */
  number: string;
  /** YYYY-MM-DD. */
  issueDate: string;
}): DianDeliveryFiles {
  const nit = input.issuerNit.replace(/\D/g, "").padStart(10, "0");
  const year = input.issueDate.slice(2, 4);
  const stem = `${nit}${OWN_SOFTWARE}${year}${consecutiveHex(input.number)}`;
  return { xml: `ad${stem}.xml`, pdf: `ad${stem}.pdf`, zip: `z${stem}.zip` };
}

/**
 * The number's consecutive (its final digits) as 8 lowercase hex digits. Past 0xffffffff (a
 * consecutive DIAN's ranges do not reach) only its lowest 32 bits fit the field.
 */
function consecutiveHex(number: string): string {
  const digits = /(\d+)$/.exec(number)?.[1] ?? "0";
  return (BigInt(digits) % 0x1_0000_0000n).toString(16).padStart(8, "0");
}
