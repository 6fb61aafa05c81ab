/**
 * The sandbox docsgen's renderer: a plain but real PDF (pdf-lib, loaded on first use) headed
 * "DOCSGEN SANDBOX", with the document's number, issuer, buyer, lines, totals and fiscal state, so a
 * test can tell a docsgen PDF from the built-in renderer's. The same request always gives the same
 * bytes: no clock, no random ids, metadata dates taken from the document.
 */
import type { PDFFont } from "pdf-lib";
import type { z } from "zod";
import { STAMP_AREA_HEIGHT } from "../shared/pdf/stamp.ts";
import type { RenderRequest } from "../shared/ports/providers/docsgen.ts";

/** The first line of every sandbox PDF, and the start of its Title metadata. */
export const DOCSGEN_SANDBOX_TITLE = "DOCSGEN SANDBOX";
/** Templates the sandbox knows; any other name is 422 template_not_found. */
export const SANDBOX_TEMPLATES = ["default", "compact"] as const;

type Request = z.output<typeof RenderRequest>;

let pdfLib: Promise<typeof import("pdf-lib")> | undefined;

const PAGE: [number, number] = [595.28, 841.89]; // A4
const LEFT = 50;
const RIGHT = 545;
const TOP = 790;
// The service stamps the CUFE and QR at the foot of the last page: templates leave that band free.
const BOTTOM = STAMP_AREA_HEIGHT + 12;

const KIND_LABEL = {
  invoice: "Factura electrónica de venta",
  credit_note: "Nota crédito electrónica",
  debit_note: "Nota débito electrónica",
};
const STATUS_LABEL = {
  not_submitted: "Documento no enviado a la DIAN: sin validez fiscal.",
  pending: "Documento en validación ante la DIAN.",
  accepted: "Documento validado por la DIAN.",
  rejected: "Documento rechazado por la DIAN: sin validez fiscal.",
};

export async function renderSandboxPdf(request: Request): Promise<Uint8Array> {
  pdfLib ??= import("pdf-lib");
  const { PDFDocument, StandardFonts } = await pdfLib;
  const doc = request.document;
  const template = request.template ?? "default";
  const size = template === "compact" ? 8 : 10;

  const pdf = await PDFDocument.create({ updateMetadata: false });
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  let page = pdf.addPage(PAGE);
  let y = TOP;

  const room = (height: number) => {
    if (y - height >= BOTTOM) return;
    page = pdf.addPage(PAGE);
    y = TOP;
  };
  const text = (value: string, options: { at?: number; f?: PDFFont; s?: number; right?: boolean } = {}) => {
    const s = options.s ?? size;
    const f = options.f ?? font;
    const safe = winAnsi(value);
    const x = options.right ? (options.at ?? RIGHT) - f.widthOfTextAtSize(safe, s) : (options.at ?? LEFT);
    page.drawText(safe, { x, y, font: f, size: s });
  };
  const line = (value: string, options: { f?: PDFFont; s?: number } = {}) => {
    const s = options.s ?? size;
    for (const part of wrap(value, Math.floor((RIGHT - LEFT) / (s * 0.5)))) {
      room(s + 4);
      text(part, options);
      y -= s + 4;
    }
  };

  line(DOCSGEN_SANDBOX_TITLE, { f: bold, s: 18 });
  line(`${KIND_LABEL[request.kind]} No. ${doc.number}`, { f: bold, s: 13 });
  if (doc.environment === "uat") line("AMBIENTE DE PRUEBAS (habilitación DIAN)", { f: bold });
  y -= 6;
  const issuer = doc.issuer;
  line(`Emisor: ${issuer.legal_name}   NIT ${issuer.nit}-${issuer.check_digit}`);
  line(`Adquiriente: ${doc.buyer.name}   Doc. ${doc.buyer.id_type} ${doc.buyer.id_number}`);
  line(`Fecha de emisión: ${doc.issue_date} ${doc.issue_time}   Moneda: ${doc.currency}`);
  if (doc.due_date) line(`Vencimiento: ${doc.due_date}`);
  if (doc.billing_reference && doc.correction) {
    const ref = doc.billing_reference;
    const verb = request.kind === "debit_note" ? "Ajusta" : "Corrige";
    line(`${verb} la factura ${ref.number} del ${ref.issue_date} (concepto ${doc.correction.concept_code})`);
    line(`Motivo: ${doc.correction.reason}`);
  }
  y -= 8;

  const header: [string, number, boolean][] = [
    ["#", LEFT, false],
    ["Descripción", LEFT + 25, false],
    ["Cant.", 360, true],
    ["Precio unitario", 450, true],
    ["Valor", RIGHT, true],
  ];
  room(size + 4);
  for (const [label, at, right] of header) text(label, { at, right, f: bold });
  y -= size + 6;
  for (const l of doc.lines) {
    room(size + 4);
    text(String(l.position));
    text(truncate(l.description, 48), { at: LEFT + 25 });
    text(l.quantity, { at: 360, right: true });
    text(l.unit_price, { at: 450, right: true });
    text(l.line_extension, { at: RIGHT, right: true });
    y -= size + 4;
  }
  y -= 8;
  const totals: [string, string][] = [
    ["Subtotal", doc.totals.subtotal],
    ["Impuestos", doc.totals.tax_total],
    ["Total", `${doc.totals.total} ${doc.currency}`],
  ];
  for (const [label, amount] of totals) {
    room(size + 4);
    text(label, { at: 380, f: bold });
    text(amount, { at: RIGHT, right: true, f: label === "Total" ? bold : font });
    y -= size + 4;
  }
  y -= 8;
  line(STATUS_LABEL[doc.status], { f: bold });
  if (doc.authority_code) {
    line(`${request.kind === "invoice" ? "CUFE" : "CUDE"}: ${doc.authority_code}`, { s: 7 });
    line(`Validación: ${doc.validated_at}`);
  }
  if (doc.notes) line(`Notas: ${doc.notes}`);
  room(size + 4);
  line(`Plantilla: ${template}   Referencia: ${request.reference}`, { s: 7 });

  const date = new Date(`${doc.issue_date}T00:00:00Z`);
  pdf.setTitle(`${DOCSGEN_SANDBOX_TITLE} ${doc.number}`);
  pdf.setSubject(request.reference);
  pdf.setAuthor(winAnsi(issuer.legal_name));
  pdf.setKeywords(["docsgen-sandbox", request.kind, template]);
  pdf.setCreator("einvoicing docsgen sandbox");
  pdf.setProducer("einvoicing docsgen sandbox (pdf-lib)");
  pdf.setCreationDate(date);
  pdf.setModificationDate(date);
  return pdf.save();
}

/** The standard fonts speak WinAnsi: Latin-1 passes, anything else becomes "?". */
function winAnsi(value: string): string {
  return value.normalize("NFC").replace(/[^\x20-\x7e\xa0-\xff]/g, "?");
}

function truncate(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max - 3)}...` : value;
}

/** Splits at spaces into lines of at most `max` characters (a longer word is cut). */
function wrap(value: string, max: number): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of value.split(/\s+/).filter(Boolean)) {
    const candidate = current ? `${current} ${word}` : word;
    if (candidate.length <= max) {
      current = candidate;
      continue;
    }
    if (current) lines.push(current);
    current = word.length > max ? word.slice(0, max) : word;
  }
  return current ? [...lines, current] : lines.length ? lines : [""];
}
