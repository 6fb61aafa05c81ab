/**
 * The e-mail a Colombian buyer receives with a validated document: its subject, in the form
 * reception mailboxes parse, and its text, in Spanish, naming the document, its authority code and
 * the files of the ZIP (./delivery-files.ts). One entry per kind of document.
 *
 * Subject, as DIAN fixes it (Resolución 042 de 2020, Anexo técnico 1.7 §10.6, kept by Anexo 1.9):
 * `NIT del emisor;Nombre del emisor;Número del documento;Código del tipo de documento;Nombre
 * comercial` — the NIT without its check digit, the legal name, the number with its prefix, `01`
 * for an invoice, `91` for a credit note and `92` for a debit note, and the trade name (the company's `trade_name`; the
 * legal name when it has none). The optional sixth field, the line of business, is left out.
 *
 * The fields are free text inside a `;`-separated line, so each is made one line (a CR/LF would be
 * a header injection) and a `;` inside a name becomes `,`: a reception mailbox splitting on `;`
 * still finds five fields, and the name still reads the same.
 */
import type { DocumentKind } from "../kernel/rows.ts";
import type { DianDeliveryFiles } from "./delivery-files.ts";

/**
 * How the message names each kind of document and its authority code, and how a note says what it
 * does to its invoice. DIAN's type codes: 01 invoice, 91 credit note, 92 debit note (the subject's
 * fourth field; Odoo's `mail_template.py` writes 92 for debit notes: brief-business §1).
 */
const WORDS: Record<
  DocumentKind,
  { typeCode: string; name: string; content: string; code: string; relation: string }
> = {
  invoice: {
    typeCode: "01",
    name: "la factura electrónica",
    content: "la factura",
    code: "CUFE",
    relation: "",
  },
  credit_note: {
    typeCode: "91",
    name: "la nota crédito electrónica",
    content: "la nota crédito",
    code: "CUDE",
    relation: "que corrige",
  },
  debit_note: {
    typeCode: "92",
    name: "la nota débito electrónica",
    content: "la nota débito",
    code: "CUDE",
    relation: "que ajusta",
  },
};

export interface BuyerEmail {
  subject: string;
  text: string;
}

export function buyerEmail(input: {
  kind: DocumentKind;
  /** The document's number, prefix included. */
  number: string;
  /** The issuing company. */
  company: { nit: string; trade_name: string | null; legal_name: string };
  /** The CUFE or CUDE the authority validated. */
  authorityCode: string | null;
  /** A note's: the invoice it is of. */
  corrects?: { number: string } | undefined;
  files: DianDeliveryFiles;
}): BuyerEmail {
  const { kind, number, company, authorityCode, corrects, files } = input;
  const words = WORDS[kind];
  const legalName = field(company.legal_name);
  const tradeName = field(company.trade_name) || legalName;
  const subject = [field(company.nit), legalName, field(number), words.typeCode, tradeName].join(";");
  const issuer = oneLine(company.trade_name) || oneLine(company.legal_name);
  const what = corrects
    ? `${words.name} ${oneLine(number)}, ${words.relation} la factura electrónica ${oneLine(corrects.number)},`
    : `${words.name} ${oneLine(number)}`;
  return {
    subject,
    text:
      `Adjuntamos ${what} de ${issuer}, validada por la DIAN ` +
      `(${words.code} ${authorityCode}). El archivo ${files.zip} contiene el documento electrónico ` +
      `(${files.xml}, el AttachedDocument con ${words.content} y la respuesta de la DIAN) y su ` +
      `representación gráfica (${files.pdf}).`,
  };
}

/** A field of the subject: one line, without the `;` that separates the fields. */
function field(value: unknown): string {
  return oneLine(value).replaceAll(";", ",");
}

/** One line of text: control characters (CR, LF, tab, …), line separators and runs of spaces become one space. */
function oneLine(value: unknown): string {
  return typeof value === "string" ? value.replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, " ").trim() : "";
}
