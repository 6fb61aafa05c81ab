/**
 * HTTP client for a docsgen provider (docs/provider-protocol.md#docsgen): POST /render answers the
 * PDF's bytes. The request is validated before it leaves (and stripped of unknown keys); the answer
 * must be a whole PDF within MAX_PDF_BYTES, read without ever buffering more than that, and cheap
 * enough to parse for stamping (../../pdf/cost.ts).
 */

import { pdfCostProblem } from "../../pdf/cost.ts";
import { isSuccess } from "../../ports/egress/exchange.ts";
import {
  type DocumentGenerator,
  MAX_PDF_BYTES,
  PDF_CONTENT_TYPE,
  pdfProblem,
  RenderRequest,
} from "../../ports/providers/docsgen.ts";
import { checkRequest } from "../../ports/providers/errors.ts";
import { createProviderTransport, type ProviderClientOptions } from "../transport.ts";

export interface DocsgenClientOptions extends ProviderClientOptions {
  /** Cap on the rendered PDF; default MAX_PDF_BYTES (10 MiB). */
  maxPdfBytes?: number;
}

/** Builds the DocumentGenerator that talks to one docsgen provider with one credential. */
export function createDocsgenClient(options: DocsgenClientOptions): DocumentGenerator {
  const http = createProviderTransport("docsgen", "createDocsgenClient", options);
  const maxPdfBytes = options.maxPdfBytes ?? MAX_PDF_BYTES;

  return {
    async render(request) {
      const body = checkRequest("render", RenderRequest, request);
      const answer = await http.call("render", "render", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
        accept: PDF_CONTENT_TYPE,
        maxBytes: maxPdfBytes,
      });
      if (!isSuccess(answer.status)) throw http.failure("render", answer);
      if (answer.truncated) throw http.malformed("render", answer, `a PDF larger than ${maxPdfBytes} bytes`);
      const problem = pdfProblem(answer.body, maxPdfBytes) ?? (await pdfCostProblem(answer.body));
      if (problem) throw http.malformed("render", answer, problem);
      return answer.body;
    },

    checkCredential: () => http.checkCredential(),
  };
}
