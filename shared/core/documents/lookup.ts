/**
 * The lookup the lifecycle hands an adapter that asks about a document (./transmit.ts, ./refresh.ts,
 * ./attached-document.ts, reconcile): the document's submit request, rebuilt from the stored document
 * only when the adapter asks for it (DIAN finds a document by its CUFE/CUDE, a provider speaking our
 * protocol by our reference alone).
 */

import { BusinessRuleError } from "../../kernel/errors.ts";
import type { DocumentKind, DocumentPayloads, Environment } from "../../kernel/rows.ts";
import type { DocumentLookup } from "../../ports/providers/protocol.ts";
import type { DocumentKindSpec } from "./kind.ts";

/** `document` as its submit request, with the provider reference last recorded for it. */
export function lookupOf<K extends DocumentKind>(
  kind: DocumentKindSpec<K>,
  document: DocumentPayloads[K],
  environment: Environment,
  providerReference: string | null,
): DocumentLookup {
  return async () => {
    const prepared = await kind.prepare(document, environment);
    if (!prepared.ok) {
      throw new BusinessRuleError(
        `The ${kind.words.noun} can no longer be rebuilt as it was sent, so the authority cannot be asked about it: ${prepared.problems.join("; ")}.`,
      );
    }
    return { request: prepared.request, providerReference };
  };
}
