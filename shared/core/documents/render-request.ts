/**
 * What a docsgen provider renders a document from, for every kind: the submit request the kind
 * prepares (the data the tax provider gets), without the issuer's secrets — the technical key, the
 * software PIN — and with the fiscal status and, once validated, the authority's stamp.
 */

import { BusinessRuleError } from "../../kernel/errors.ts";
import type { DocumentKind, DocumentPayloads, Environment } from "../../kernel/rows.ts";
import type { RenderRequest } from "../../ports/providers/docsgen.ts";
import { renderStatusOf } from "../../ports/providers/protocol-values.ts";
import type { DocumentKindSpec, PdfFiscal } from "./kind.ts";

export async function renderRequest<K extends DocumentKind>(
  kind: DocumentKindSpec<K>,
  document: DocumentPayloads[K],
  fiscal: PdfFiscal,
  environment: Environment,
  stamp: { authority_code: string; qr_text: string; validated_at: string } | null,
): Promise<RenderRequest> {
  const prepared = await kind.prepare(document, environment);
  if (!prepared.ok) {
    throw new BusinessRuleError(
      `The ${kind.words.noun} cannot be rendered: ${prepared.problems.join("; ")}.`,
    );
  }
  const { kind: _kind, reference, issuer, ...data } = prepared.request;
  const { technical_key: _key, software_pin: _pin, ...publicIssuer } = issuer;
  return {
    kind: kind.kind,
    reference,
    document: { ...data, issuer: publicIssuer, status: renderStatusOf(fiscal.status), ...(stamp ?? {}) },
  };
}
