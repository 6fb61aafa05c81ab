/**
 * The e-mail a Colombian buyer receives with a validated document: its subject and text, in
 * Spanish, naming the document as DIAN does, its authority code and the files of the ZIP
 * (./delivery-files.ts). One entry per kind of document that is delivered.
 */
import type { DocumentKind } from "../../db/rows.ts";
import type { DianDeliveryFiles } from "./delivery-files.ts";

/** How the message names each kind of document and its authority code. */
const WORDS = {
  invoice: {
    title: "Factura electrónica",
    name: "la factura electrónica",
    content: "la factura",
    code: "CUFE",
  },
} as const satisfies Partial<
  Record<DocumentKind, { title: string; name: string; content: string; code: string }>
>;

export type DeliveredKind = keyof typeof WORDS;

export interface BuyerEmail {
  subject: string;
  text: string;
}

export function buyerEmail(input: {
  kind: DeliveredKind;
  /** The document's number, prefix included. */
  number: string;
  /** The issuing company, as its buyer knows it. */
  company: { trade_name: string | null; legal_name: string };
  /** The CUFE the authority validated. */
  authorityCode: string | null;
  files: DianDeliveryFiles;
}): BuyerEmail {
  const { kind, number, company, authorityCode, files } = input;
  const words = WORDS[kind];
  // Company names are free text: a CR/LF in a subject would be a header injection, so it is one line.
  const issuer = oneLine(company.trade_name) || oneLine(company.legal_name);
  return {
    subject: oneLine(`${words.title} ${number} de ${issuer}`),
    text:
      `Adjuntamos ${words.name} ${number} de ${issuer}, validada por la DIAN ` +
      `(${words.code} ${authorityCode}). El archivo ${files.zip} contiene el documento electrónico ` +
      `(${files.xml}, el AttachedDocument con ${words.content} y la respuesta de la DIAN) y su ` +
      `representación gráfica (${files.pdf}).`,
  };
}

/** One line of text: control characters (CR, LF, tab, …), line separators and runs of spaces become one space. */
function oneLine(value: unknown): string {
  return typeof value === "string" ? value.replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, " ").trim() : "";
}
