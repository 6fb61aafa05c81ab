/**
 * The TaxAdapter of DIAN direct: DIAN itself is the provider (DESIGN §10). The work is DIAN's
 * (./transmission.ts); this only speaks the port's language — DIAN's answers as
 * document outcomes, a document DIAN never received as `null`, DIAN's words as the outcome's
 * message and its rules as the outcome's errors.
 */

import { ProviderRejectedError, ProviderRequestError } from "../../ports/providers/errors.ts";
import type {
  DocumentLookup,
  DocumentOutcome,
  SubmitDocumentRequest,
  TaxAdapter,
} from "../../ports/providers/protocol.ts";
import type { Signer } from "./certificate.ts";
import {
  createDianTransmission,
  type DianResult,
  type DianTransmissionOptions,
  dianProblem,
  NotAcceptedError,
} from "./transmission.ts";

export interface DianAdapterOptions extends DianTransmissionOptions {
  signer: Signer;
}

const duplicate = (result: DianResult) => result.status === "accepted" && result.duplicate;

export function createDianAdapter(options: DianAdapterOptions): TaxAdapter {
  const dian = createDianTransmission(options);
  const now = options.now ?? (() => new Date());

  function outcome(reference: string, result: DianResult): DocumentOutcome {
    const base = {
      reference,
      provider_reference: result.reference,
      // DIAN's own words; ours when DIAN gave none, and for a rule 90 acceptance, which DIAN words
      // as a rejection ("Validación contiene errores en campos mandatorios.")
      message: (duplicate(result) ? result.message : result.authorityMessage || result.message).slice(
        0,
        2000,
      ),
      ...(result.rules.length > 0 ? { errors: result.rules } : {}),
    };
    switch (result.status) {
      case "accepted":
        return {
          ...base,
          status: "accepted",
          authority_code: result.documentKey,
          qr_text: result.qrText,
          validated_at: now().toISOString(),
        };
      case "rejected":
        return { ...base, status: "rejected" };
      default:
        return { ...base, status: "pending" };
    }
  }

  async function known(lookup: DocumentLookup | undefined, operation: "query" | "attached_document") {
    if (!lookup) {
      throw new ProviderRequestError(operation, [
        { field: "document", message: "DIAN finds a document by its CUFE/CUDE: the document is needed" },
      ]);
    }
    return lookup();
  }

  return {
    precheck: (request: SubmitDocumentRequest) => dianProblem(request, options.software),

    async submit(request) {
      return outcome(request.reference, await dian.submit(request));
    },

    async query(reference, lookup) {
      const { request, providerReference } = await known(lookup, "query");
      const result = await dian.query(request, providerReference);
      return result.status === "not_found" ? null : outcome(reference, result);
    },

    async attachedDocument(_reference, { authorityCode, lookup }) {
      const { request } = await known(lookup, "attached_document");
      try {
        return await dian.attachedDocument(request, authorityCode);
      } catch (error) {
        if (!(error instanceof NotAcceptedError)) throw error;
        throw new ProviderRejectedError(`DIAN: ${error.message}.`, {
          operation: "attached_document",
          maybeProcessed: false,
          status: error.code === "document_not_found" ? 404 : 409,
          providerCode: error.code,
        });
      }
    },

    async checkCredential() {
      const nit = options.signer.certificate.nit;
      if (!nit) return { ok: false, message: "The certificate carries no NIT where DIAN reads it." };
      const verdict = await dian.checkSoftware(nit);
      if (verdict.failure) throw verdict.failure;
      return { ok: verdict.ok, message: verdict.message };
    },
  };
}
