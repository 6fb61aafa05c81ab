/**
 * Documents for the provider tests: fresh reference and number each time, so no test depends on
 * another's submissions (the sandbox rejects a CUFE it has already accepted for another document).
 */
import { randomInt, randomUUID } from "node:crypto";
import { inflateSync } from "node:zlib";
import { expect } from "vitest";
import type { DeliveryMessage } from "../../shared/ports/providers/deliver.ts";
import type { RenderRequest } from "../../shared/ports/providers/docsgen.ts";
import { ProviderError } from "../../shared/ports/providers/errors.ts";
import type { SubmitDocumentRequest } from "../../shared/ports/providers/protocol.ts";

export const SANDBOX_KEY = "sk_sandbox_test_0001";

/**
 * 2 × 50.000 at 19 % IVA and 1 × 10.000 excluded from taxes: subtotal 110.000, IVA 19.000, total
 * 129.000.
 * `change` edits the copy before it is returned.
 */
export function makeDocument(change?: (doc: SubmitDocumentRequest) => void): SubmitDocumentRequest {
  const doc: SubmitDocumentRequest = {
    kind: "invoice",
    reference: randomUUID(),
    environment: "uat",
    number: `SETP${randomInt(1_000_000, 999_999_999)}`,
    issue_date: "2026-11-20",
    issue_time: "10:30:00-05:00",
    currency: "COP",
    issuer: {
      nit: "900123456",
      check_digit: "8",
      legal_name: "Empresa Demo S.A.S.",
      person_type: "1",
      tax_scheme: "01",
      fiscal_responsibilities: ["O-13"],
      technical_key: "fc8eac422eba16e22ffd8c6f94b3f40a6e38162c",
    },
    buyer: {
      id_type: "13",
      id_number: "1020304050",
      name: "Ana Gómez",
      person_type: "2",
      fiscal_responsibilities: ["R-99-PN"],
      tax_scheme: "ZZ",
      country_code: "CO",
      email: "ana@example.com",
    },
    lines: [
      {
        position: 1,
        description: "Servicio de consultoría",
        quantity: "2",
        unit_price: "50000.00",
        line_extension: "100000.00",
        taxes: [
          { code: "01", name: "IVA", percent: "19.00", taxable_amount: "100000.00", tax_amount: "19000.00" },
        ],
        tax_amount: "19000.00",
      },
      {
        position: 2,
        description: "Libro técnico",
        quantity: "1",
        unit_price: "10000.00",
        line_extension: "10000.00",
        taxes: [],
        tax_amount: "0.00",
      },
    ],
    tax_totals: [
      {
        code: "01",
        name: "IVA",
        tax_amount: "19000.00",
        subtotals: [{ percent: "19.00", taxable_amount: "100000.00", tax_amount: "19000.00" }],
      },
    ],
    totals: {
      subtotal: "110000.00",
      tax_exclusive_amount: "100000.00",
      tax_total: "19000.00",
      tax_inclusive_amount: "129000.00",
      total: "129000.00",
    },
  };
  change?.(doc);
  return doc;
}

/** A render request for a fresh document, not yet submitted; `change` edits the copy. */
export function makeRenderRequest(change?: (request: RenderRequest) => void): RenderRequest {
  const { kind: _kind, reference, issuer, ...rest } = makeDocument();
  const { technical_key: _secret, ...publicIssuer } = issuer;
  const request: RenderRequest = {
    kind: "invoice",
    reference,
    document: { ...rest, issuer: publicIssuer, status: "not_submitted" },
  };
  change?.(request);
  return request;
}

/** Marks a render request's document as validated by the authority. */
export function accepted(request: RenderRequest): void {
  Object.assign(request.document, {
    status: "accepted",
    authority_code: "ab".repeat(48),
    qr_text: `NumFac: ${request.document.number}`,
    validated_at: "2026-11-20T15:30:02Z",
  });
}

/** Bytes that pass the client's PDF check (header and end marker), for msw answers. */
export function fakePdf(padding = 0): Uint8Array {
  return new TextEncoder().encode(`%PDF-1.7\n${"%".repeat(padding)}\ntrailer\n<<>>\n%%EOF\n`);
}

/** A message for a fresh delivery id with one small PDF attachment; `change` edits the copy. */
export function makeMessage(change?: (message: DeliveryMessage) => void): DeliveryMessage {
  const message: DeliveryMessage = {
    reference: randomUUID(),
    to: ["ana@example.com"],
    subject: "Factura electrónica SETP990000001",
    text: "Adjuntamos su factura electrónica.",
    attachments: [{ filename: "SETP990000001.pdf", content_type: "application/pdf", content: fakePdf(40) }],
  };
  change?.(message);
  return message;
}

/**
 * The text a pdf-lib PDF draws: its (deflated) content streams' `<hex> Tj` strings, decoded as
 * Latin-1. Enough to check what a sandbox PDF says without a PDF text extractor.
 */
export function pdfText(pdf: Uint8Array): string {
  const raw = Buffer.from(pdf).toString("latin1");
  const texts: string[] = [];
  // the end-of-line before `endstream` is "\n" from pdf-lib, "\r\n" from some writers: a stream whose
  // compressed bytes end in "\r" (about one in a hundred) is inflated whole first, then without it
  for (const match of raw.matchAll(/stream\r?\n([\s\S]*?)\nendstream/g)) {
    const data = match[1] ?? "";
    const candidates = data.endsWith("\r") ? [data, data.slice(0, -1)] : [data];
    let content = data;
    for (const candidate of candidates) {
      try {
        content = inflateSync(Buffer.from(candidate, "latin1")).toString("latin1");
        break;
      } catch {
        // not compressed, or not this candidate
      }
    }
    for (const tj of content.matchAll(/<([0-9A-Fa-f]*)> Tj/g)) {
      texts.push(Buffer.from(tj[1] ?? "", "hex").toString("latin1"));
    }
  }
  return texts.join("\n");
}

/** The ProviderError a call rejects with (fails the test when it resolves or throws anything else). */
export async function failure(call: () => Promise<unknown>): Promise<ProviderError> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}
