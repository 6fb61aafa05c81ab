/**
 * The typed client for web apps: `createEinvoicingClient(supabase)` gives one method per operation,
 * typed from the routes' own zod schemas, calling `supabase.functions.invoke` with the signed-in
 * user's session (so it works in a browser and in Node), and one error class for every failure.
 *
 *   const einvoicing = createEinvoicingClient(supabase);
 *   const { results } = await einvoicing.transmit({ org_id, invoice_ids }, { idempotencyKey });
 *   const { pdf, filename } = await einvoicing.downloadRepresentation({ org_id, invoice_id });
 *
 * It imports types only: nothing of the server (nor zod) ends up in the web app's bundle.
 */
import type { CreditNoteRequest, CreditNoteResponse } from "../functions/credit-notes/create.ts";
import type {
  RefreshRequest as CreditNoteRefreshRequest,
  RefreshResponse as CreditNoteRefreshResponse,
} from "../functions/credit-notes/refresh.ts";
import type { ReissueRequest } from "../functions/credit-notes/reissue.ts";
import type {
  RepresentationRequest as CreditNoteRepresentationRequest,
  RepresentationResponse as CreditNoteRepresentationResponse,
} from "../functions/credit-notes/representation.ts";
import type { IntegrationSaveRequest, IntegrationSaveResponse } from "../functions/integrations/save.ts";
import type { IntegrationTestRequest, IntegrationTestResponse } from "../functions/integrations/test.ts";
import type { DeliverRequest, DeliverResponse } from "../functions/invoices/deliver.ts";
import type { RefreshRequest, RefreshResponse } from "../functions/invoices/refresh.ts";
import type { RepresentationRequest, RepresentationResponse } from "../functions/invoices/representation.ts";
import type { TransmitRequest, TransmitResponse } from "../functions/invoices/transmit.ts";
import type { ErrorCode, ErrorDetail } from "../shared/errors.ts";

export type {
  CreditNoteRefreshRequest,
  CreditNoteRefreshResponse,
  CreditNoteRepresentationRequest,
  CreditNoteRepresentationResponse,
  CreditNoteRequest,
  CreditNoteResponse,
  DeliverRequest,
  DeliverResponse,
  ErrorCode,
  ErrorDetail,
  IntegrationSaveRequest,
  IntegrationSaveResponse,
  IntegrationTestRequest,
  IntegrationTestResponse,
  RefreshRequest,
  RefreshResponse,
  ReissueRequest,
  RepresentationRequest,
  RepresentationResponse,
  TransmitRequest,
  TransmitResponse,
};

/** The private bucket the representations are kept in; users download with their own session. */
export const DOCUMENTS_BUCKET = "service-documentos";

/** What the client needs of a supabase-js client (`createClient(…)` is one). */
export interface SupabaseLike {
  functions: {
    invoke(
      name: string,
      options: { body: Record<string, unknown>; headers?: Record<string, string>; method?: "POST" },
    ): Promise<{ data: unknown; error: unknown }>;
  };
  storage: {
    from(bucket: string): { download(path: string): Promise<{ data: Blob | null; error: unknown }> };
  };
}

export interface CallOptions {
  /**
   * Sent as `Idempotency-Key`: the same key with the same body within 24 hours answers the first
   * answer again instead of doing the work twice. Use one per user action, and reuse it on retry.
   */
  idempotencyKey?: string;
}

/**
 * Every failure: the API's error (`code`, `status`, `details`, `request_id` as the service sent
 * them), or `network_error` (status 0) when no answer arrived, or `unexpected_response` when the
 * answer was not the API's, or `download_failed` when storage refused the PDF.
 */
export type EinvoicingErrorCode = ErrorCode | "network_error" | "unexpected_response" | "download_failed";

export class EinvoicingError extends Error {
  override readonly name = "EinvoicingError";
  readonly code: EinvoicingErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[];
  readonly request_id: string | null;
  /** Seconds to wait before retrying, when the service said (429, 503). */
  readonly retry_after: number | null;

  constructor(init: {
    code: EinvoicingErrorCode;
    status: number;
    message: string;
    details?: ErrorDetail[];
    request_id?: string | null;
    retry_after?: number | null;
    cause?: unknown;
  }) {
    super(init.message, { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.details = init.details ?? [];
    this.request_id = init.request_id ?? null;
    this.retry_after = init.retry_after ?? null;
  }
}

/** Each method's route under the function, as in docs/openapi.json. */
export const ROUTES = {
  transmit: "transmit",
  refresh: "refresh",
  representation: "representation",
  deliver: "deliver",
  "creditNotes.create": "credit-notes",
  "creditNotes.reissue": "credit-notes/reissue",
  "creditNotes.representation": "credit-notes/representation",
  "creditNotes.refresh": "credit-notes/refresh",
  "integrations.test": "integrations/test",
  "integrations.save": "integrations/save",
} as const;

type Call<I, O> = (input: I, options?: CallOptions) => Promise<O>;
type Download<I, R> = (input: I, options?: CallOptions) => Promise<R & { pdf: Blob }>;

export interface EinvoicingClient {
  transmit: Call<TransmitRequest, TransmitResponse>;
  refresh: Call<RefreshRequest, RefreshResponse>;
  representation: Call<RepresentationRequest, RepresentationResponse>;
  /** The invoice's representation, and its PDF downloaded from the private bucket with the user's session. */
  downloadRepresentation: Download<RepresentationRequest, RepresentationResponse>;
  deliver: Call<DeliverRequest, DeliverResponse>;
  creditNotes: {
    create: Call<CreditNoteRequest, CreditNoteResponse>;
    reissue: Call<ReissueRequest, CreditNoteResponse>;
    representation: Call<CreditNoteRepresentationRequest, CreditNoteRepresentationResponse>;
    downloadRepresentation: Download<CreditNoteRepresentationRequest, CreditNoteRepresentationResponse>;
    refresh: Call<CreditNoteRefreshRequest, CreditNoteRefreshResponse>;
  };
  integrations: {
    test: Call<IntegrationTestRequest, IntegrationTestResponse>;
    save: Call<IntegrationSaveRequest, IntegrationSaveResponse>;
  };
}

export function createEinvoicingClient(
  supabase: SupabaseLike,
  options: { functionName?: string } = {},
): EinvoicingClient {
  const functionName = options.functionName ?? "einvoicing";

  const call =
    <I, O>(route: string): Call<I, O> =>
    async (input, callOptions = {}) => {
      const headers: Record<string, string> = {};
      if (callOptions.idempotencyKey !== undefined) headers["Idempotency-Key"] = callOptions.idempotencyKey;
      let result: { data: unknown; error: unknown };
      try {
        result = await supabase.functions.invoke(`${functionName}/${route}`, {
          method: "POST",
          body: input as Record<string, unknown>,
          headers,
        });
      } catch (error) {
        throw new EinvoicingError({ code: "network_error", status: 0, message: String(error), cause: error });
      }
      if (result.error) throw await toEinvoicingError(result.error);
      return result.data as O;
    };

  const download =
    <I, R extends { path: string }>(representation: Call<I, R>): Download<I, R> =>
    async (input, callOptions) => {
      const answer = await representation(input, callOptions);
      const { data, error } = await supabase.storage.from(DOCUMENTS_BUCKET).download(answer.path);
      if (error || !data) {
        const message = (error as { message?: unknown } | null)?.message;
        throw new EinvoicingError({
          code: "download_failed",
          status: Number((error as { statusCode?: unknown } | null)?.statusCode ?? 0) || 0,
          message: `The PDF could not be downloaded: ${typeof message === "string" ? message : "no data"}`,
          cause: error,
        });
      }
      return { ...answer, pdf: data };
    };

  const representation = call<RepresentationRequest, RepresentationResponse>(ROUTES.representation);
  const creditNoteRepresentation = call<CreditNoteRepresentationRequest, CreditNoteRepresentationResponse>(
    ROUTES["creditNotes.representation"],
  );
  return {
    transmit: call(ROUTES.transmit),
    refresh: call(ROUTES.refresh),
    representation,
    downloadRepresentation: download(representation),
    deliver: call(ROUTES.deliver),
    creditNotes: {
      create: call(ROUTES["creditNotes.create"]),
      reissue: call(ROUTES["creditNotes.reissue"]),
      representation: creditNoteRepresentation,
      downloadRepresentation: download(creditNoteRepresentation),
      refresh: call(ROUTES["creditNotes.refresh"]),
    },
    integrations: {
      test: call(ROUTES["integrations.test"]),
      save: call(ROUTES["integrations.save"]),
    },
  };
}

/**
 * supabase-js's FunctionsHttpError carries the Response as `context`; its FunctionsFetchError and
 * FunctionsRelayError mean no answer from the function. Told apart by shape, not by class, so the
 * client imports nothing of supabase-js at run time.
 */
async function toEinvoicingError(error: unknown): Promise<EinvoicingError> {
  const context = (error as { context?: unknown }).context;
  const message = (error as { message?: unknown }).message;
  if (!(context instanceof Response)) {
    return new EinvoicingError({
      code: "network_error",
      status: 0,
      message: typeof message === "string" ? message : "The service could not be reached.",
      cause: error,
    });
  }
  const requestId = context.headers.get("x-request-id");
  const retryAfter = Number(context.headers.get("retry-after"));
  const body = (await context.json().catch(() => null)) as {
    error?: { code?: unknown; message?: unknown; details?: unknown; request_id?: unknown };
  } | null;
  const apiError = body?.error;
  if (!apiError || typeof apiError.code !== "string" || typeof apiError.message !== "string") {
    return new EinvoicingError({
      code: "unexpected_response",
      status: context.status,
      message: `The service answered ${context.status} without an error body.`,
      request_id: requestId,
      cause: error,
    });
  }
  return new EinvoicingError({
    code: apiError.code as ErrorCode,
    status: context.status,
    message: apiError.message,
    details: Array.isArray(apiError.details) ? (apiError.details as ErrorDetail[]) : [],
    request_id: typeof apiError.request_id === "string" ? apiError.request_id : requestId,
    retry_after: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
    cause: error,
  });
}
