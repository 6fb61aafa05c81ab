/**
 * The catalogue of database API functions the service calls, by area: each function once, with
 * the one role it is granted to, its arguments in order with their types, and its result. The
 * argument names are the run-time part — `tests/db/catalogue.test.ts` compares them and the grants
 * with `pg_proc`, so a renamed argument or a changed grant fails a test, not a request — and the
 * types the transports are called with (`ApiFunctions`) are derived from the same entries.
 */

import type {
  ClaimEntry,
  CredentialRow,
  CreditedLine,
  DebitedLine,
  DeliveryAttachmentRecord,
  DocumentKind,
  DocumentRecord,
  Environment,
  FiscalStatus,
  MembershipRow,
  RecordedOutcome,
  RecordedResult,
  RepresentationRow,
} from "../../kernel/rows.ts";
import { events } from "./catalogue-events.ts";
import {
  type ApiFunction,
  arg,
  authenticated,
  bool,
  num,
  service,
  type signature,
  str,
} from "./catalogue-kit.ts";

export type { ApiFunction } from "./catalogue-kit.ts";

/**
 * `<F>_authorized`: the call `F`, made only when `p_user_id` is a member of the org with one of
 * `p_roles`; it answers the membership (null: none) and, when it was made, F's result. The first
 * call of a request that checks the caller in the same round trip (shared/http/authorize.ts).
 */
function authorized<A, R>(
  fn: ApiFunction<A, R>,
): ApiFunction<
  { p_user_id: string; p_roles: readonly string[] } & A,
  { membership: MembershipRow | null; result?: R }
> {
  return { role: "service_role", args: ["p_user_id", "p_roles", ...fn.args] } as unknown as ApiFunction<
    { p_user_id: string; p_roles: readonly string[] } & A,
    { membership: MembershipRow | null; result?: R }
  >;
}

/** Callable by `authenticated`: the caller's own membership. */
const caller = {
  einv_caller_membership: authenticated({ p_org_id: str }).returns<MembershipRow | null>(),
};

/** Callable by `service_role`: provider credentials, sealed. */
const credentials = {
  einv_credential_get: service({
    p_org_id: str,
    p_company_id: str,
    p_service: str,
    p_environment: str,
  }).returns<CredentialRow | null>(),
};

/** A stored credential as /integrations reads it: with the id of the key that sealed it. */
export interface StoredCredential extends CredentialRow {
  /** null for a row sealed before key ids were recorded. */
  key_id: string | null;
}

/** What a save answers: the credential without its key. */
export interface SavedCredential {
  company_id: string;
  service: "adapter-tax" | "docsgen" | "deliver";
  environment: "uat" | "prd";
  url: string;
  settings: Record<string, unknown>;
  api_key_hint: string;
  verified_at: string;
}

/** One credential as a re-seal walks them. */
export interface SealedCredential {
  id: string;
  org_id: string;
  company_id: string;
  service: string;
  environment: string;
  api_key_ciphertext: string;
  key_id: string | null;
}

/** Callable by `service_role`: /integrations/test and /integrations/save, and re-sealing. */
const integrations = {
  einv_integration_get: service({
    p_org_id: str,
    p_company_id: str,
    p_service: str,
    p_environment: str,
  }).returns<StoredCredential | null>(),
  einv_integration_issuer: service({ p_org_id: str, p_company_id: str }).returns<{
    nit: string;
    check_digit: string;
  }>(),
  einv_integration_save: service({
    p_org_id: str,
    p_company_id: str,
    p_service: str,
    p_environment: str,
    p_url: str,
    p_settings: arg<Record<string, unknown>>(),
    p_api_key_ciphertext: str,
    p_api_key_hint: str,
    p_key_id: str,
    p_key_source: arg<"given" | "saved">(),
    p_message: str,
    /** null when no user saves it (the local demo's and the tests' seeding). */
    p_actor_id: arg<string | null>(),
  }).returns<SavedCredential>(),
  einv_integration_event: service({
    p_org_id: str,
    p_company_id: str,
    p_event: arg<"credential_tested" | "credential_save_refused">(),
    p_service: str,
    p_environment: str,
    p_outcome: arg<"ok" | "failed" | "refused_url" | "rejected" | "unverified">(),
    p_message: str,
    p_url: arg<string | null>(),
    p_api_key_hint: arg<string | null>(),
    p_key_source: arg<"given" | "saved">(),
    p_actor_id: str,
  }).returns<null>(),
  einv_credential_list: service({ p_after: arg<string | null>(), p_limit: num }).returns<
    SealedCredential[]
  >(),
  einv_credential_reseal: service({
    p_id: str,
    p_expected_ciphertext: str,
    p_api_key_ciphertext: str,
    p_key_id: str,
  }).returns<boolean>(),
};

const kind = arg<DocumentKind>();

/** Callable by `service_role`: the fiscal-document lifecycle, for any kind. */
const lifecycle = {
  einv_document_claim: service({
    p_org_id: str,
    p_kind: kind,
    p_document_ids: arg<string[]>(),
    p_reissue: bool,
    p_actor_id: str,
    p_lease_seconds: num,
    /** The service's instant (its Clock, ISO-8601): what a document it sends afresh is issued at. */
    p_issued_at: str,
  }).returns<ClaimEntry[]>(),
  /** The claim, and the `p_service` credentials of the companies and environments it sends in. */
  einv_document_claim_sending: service({
    p_org_id: str,
    p_kind: kind,
    p_document_ids: arg<string[]>(),
    p_reissue: bool,
    p_actor_id: str,
    p_lease_seconds: num,
    p_issued_at: str,
    p_service: str,
  }).returns<{
    entries: ClaimEntry[];
    credentials: CredentialRow[];
    /** A webhook delivery of the org waits: queued by this claim, or due already (a retry). */
    webhooks_due?: boolean;
  }>(),
  einv_document_record: service({
    p_org_id: str,
    p_kind: kind,
    p_document_id: str,
    p_attempt: num,
    p_outcome: arg<RecordedOutcome>(),
  }).returns<{ document_id: string; status: FiscalStatus } & RecordedResult>(),
  einv_document_get: service({ p_org_id: str, p_kind: kind, p_document_id: str }).returns<DocumentRecord>(),
  /** A document, and the `p_service` credential of its company in its environment (none: `[]`). */
  einv_document_get_with_credentials: service({
    p_org_id: str,
    p_kind: kind,
    p_document_id: str,
    p_service: str,
  }).returns<{ record: DocumentRecord; credentials: CredentialRow[] }>(),
  /**
   * What /representation reads: only the stored PDF when `p_inputs` are still the document's and
   * the stored PDF has `p_fingerprint`, else the whole document as the call above answers it with
   * the docsgen credential; either way with the document's current inputs (null for a kind without).
   */
  einv_document_representation_read: service({
    p_org_id: str,
    p_kind: kind,
    p_document_id: str,
    p_inputs: arg<string | null>(),
    p_fingerprint: arg<string | null>(),
  }).returns<
    { inputs: string | null } & (
      | { representation: RepresentationRow }
      | { record: DocumentRecord; credentials: CredentialRow[] }
    )
  >(),
  einv_document_refresh_record: service({
    p_org_id: str,
    p_kind: kind,
    p_document_id: str,
    p_expected_status: arg<FiscalStatus>(),
    p_expected_attempt: num,
    p_outcome: arg<Partial<RecordedOutcome> & { actor_id?: string }>(),
  }).returns<
    {
      document_id: string;
      status: Exclude<FiscalStatus, "pendiente">;
      authority_code: string | null;
      checked_at: string;
    } & RecordedResult
  >(),
};

/** The lifecycle calls a request's first call can be, each checking the caller on the way. */
const authorizedLifecycle = {
  einv_document_get_with_credentials_authorized: authorized(lifecycle.einv_document_get_with_credentials),
  einv_document_claim_sending_authorized: authorized(lifecycle.einv_document_claim_sending),
  einv_document_representation_read_authorized: authorized(lifecycle.einv_document_representation_read),
};

/** Callable by `service_role`: credit notes, created and claimed in one call. */
const creditNotes = {
  einv_credit_note_create: service({
    p_org_id: str,
    p_invoice_id: str,
    p_concept_code: str,
    p_reason: str,
    /**
     * null: everything still left of the invoice. Otherwise distinct lines of it: `{ line_id }`
     * everything left of the line, or a quantity (concept 1) or base amount (concepts 3–6) of it.
     */
    p_lines: arg<CreditedLine[] | null>(),
    p_actor_id: str,
    p_lease_seconds: num,
    /** The service's instant (its Clock, ISO-8601): the note is issued at it. */
    p_issued_at: str,
  }).returns<ClaimEntry<"credit_note">>(),
};

/** Callable by `service_role`: debit notes, created and claimed in one call. */
const debitNotes = {
  einv_debit_note_create: service({
    p_org_id: str,
    p_invoice_id: str,
    p_concept_code: str,
    p_reason: str,
    /** What is charged: 1 to 1,000 lines, each an invoice line's inputs. */
    p_lines: arg<DebitedLine[]>(),
    p_actor_id: str,
    p_lease_seconds: num,
    /** The service's instant (its Clock, ISO-8601): the note is issued at it. */
    p_issued_at: str,
  }).returns<ClaimEntry<"debit_note">>(),
};

/** What one kind of a test set's documents stands at (`einv_test_set_progress`). */
export interface TestSetKindProgress {
  issued: number;
  sent: number;
  accepted: number;
  /** Rejected by the set's validation (`error`, not for the closed set). */
  rejected: number;
  /** Answered DIAN's status 2 (the set is already closed): `error`, but not validated by the set. */
  closed: number;
  in_flight: number;
  /** Drafts never sent, and documents left `en_proceso` that no transmission holds (≤ 50 each). */
  drafts: string[];
  open: string[];
}

/** Where a company's habilitación test set stands (supabase/migrations/…_test_sets.sql). */
export interface TestSetProgress {
  environment: Environment;
  /** The uat adapter-tax credential's `settings.provider` and `settings.test_set_id` (null: none). */
  provider: string | null;
  test_set_id: string | null;
  numbering: { prefix: string; from: number | null; to: number | null };
  kinds: Record<DocumentKind, TestSetKindProgress>;
  /** DIAN's latest words about the set itself (GetStatusZip's status 2), or null. */
  set_words: string | null;
  /** The set's first accepted invoice and its first line: what its notes are of. */
  base_invoice: { id: string; line_id: string } | null;
}

/** Callable by `service_role`: habilitación's test set (shared/core/integrations/test-set.ts). */
const testSets = {
  einv_test_set_progress: service({ p_org_id: str, p_company_id: str }).returns<TestSetProgress>(),
  einv_test_set_invoices: service({
    p_org_id: str,
    p_company_id: str,
    p_test_set_id: str,
    /** 1 to 50 drafts. */
    p_count: num,
  }).returns<string[]>(),
  /**
   * `p_seconds` > 0 takes (or, under the holder's own `p_token`, renews) the company's run lease
   * (false: another token holds it) and records `p_caps`, the set and each kind's `send`; 0 gives it back when
   * `p_token` holds it.
   */
  einv_test_set_lease: service({
    p_org_id: str,
    p_company_id: str,
    p_token: str,
    p_seconds: num,
    p_caps: arg<{ test_set_id: string; invoice: number; credit_note: number; debit_note: number }>(),
  }).returns<boolean>(),
};

/**
 * Callable by `service_role`: the Idempotency-Key of every POST (shared/http/idempotency.ts). The
 * reasons of a conflict are reason codes (../../db/reasons.ts).
 */
const idempotency = {
  einv_idempotency_begin: service({
    p_org_id: str,
    p_route: str,
    p_key: str,
    p_request_hash: str,
  }).returns<
    | { outcome: "proceed"; claim_id: string }
    | { outcome: "replay"; status: number; response: unknown }
    | { outcome: "conflict"; reason: "idempotency_body_differs" | "idempotency_in_flight" }
  >(),
  einv_idempotency_finish: service({
    p_org_id: str,
    p_route: str,
    p_key: str,
    p_claim_id: str,
    /** null releases the key; otherwise the answer's status, kept with `p_response`. */
    p_status: arg<number | null>(),
    p_response: arg<unknown>(),
  }).returns<{ outcome: "stored" | "released" | "lost" }>(),
};

/** Callable by `service_role`: the reconcile job (functions/reconcile). */
const reconcile = {
  einv_reconcile_begin: service({}).returns<{ run_id: string }>(),
  einv_reconcile_pick: service({
    p_run_id: str,
    p_limit: num,
    p_grace_seconds: num,
    p_lease_seconds: num,
  }).returns<
    {
      kind: DocumentKind;
      document_id: string;
      org_id: string;
      company_id: string;
      environment: "uat" | "prd" | null;
      attempt_count: number;
    }[]
  >(),
  einv_reconcile_record: service({
    p_run_id: str,
    p_org_id: str,
    p_kind: kind,
    p_document_id: str,
    p_outcome: arg<Partial<RecordedOutcome>>(),
  }).returns<{ recorded: boolean; status?: FiscalStatus }>(),
  einv_reconcile_release: service({
    p_run_id: str,
    p_org_id: str,
    p_kind: kind,
    p_document_id: str,
  }).returns<{ released: boolean }>(),
  einv_reconcile_finish: service({
    p_run_id: str,
    p_settled: num,
    p_deliveries_retried: num,
    p_errors: arg<unknown[]>(),
    p_took_ms: num,
  }).returns<{
    run_id: string;
    picked: number;
    settled: number;
    still_open: number;
    deliveries_retried: number;
    took_ms: number;
  }>(),
};

/** How many deliveries a request may begin within `window_seconds`: per document, per organization. */
export interface DeliveryLimits {
  per_document: number;
  per_organization: number;
  window_seconds: number;
}

/**
 * What `einv_delivery_begin` did: opened a delivery; or found one of the same document to the same
 * address still open or just sent (`existing`: nothing is to be sent); or refused (`rate_limited`).
 */
export type DeliveryBegun =
  | {
      delivery_id: string;
      /** The package's name parts: the year and the issuer's consecutive of packages sent in it. */
      package_year: number;
      package_number: number;
      existing?: undefined;
      rate_limited?: undefined;
    }
  | {
      delivery_id: string;
      existing: {
        document_id: string;
        to: string;
        status: "pendiente" | "enviada";
        message: string | null;
        created_at: string;
      };
      rate_limited?: undefined;
    }
  | {
      delivery_id?: undefined;
      existing?: undefined;
      rate_limited: { scope: "document" | "organization"; limit: number; retry_after_seconds: number };
    };

/** Callable by `service_role`: PDFs and deliveries. */
const records = {
  einv_representation_save: service({
    p_org_id: str,
    p_kind: kind,
    p_document_id: str,
    p_path: str,
    p_filename: str,
    p_fingerprint: str,
    p_stamped: bool,
    p_renderer: arg<"builtin" | "docsgen">(),
    /** The AttachedDocument already in the bucket; null before acceptance or while not obtained. */
    p_xml_path: arg<string | null>(),
  }).returns<RepresentationRow>(),
  /** Adds the XML's path to the record of the PDF with `p_fingerprint`; the record as it is. */
  einv_representation_attach_xml: service({
    p_org_id: str,
    p_kind: kind,
    p_document_id: str,
    p_fingerprint: str,
    p_xml_path: str,
  }).returns<RepresentationRow | null>(),
  einv_delivery_begin: service({
    p_org_id: str,
    p_kind: kind,
    p_document_id: str,
    p_recipient: str,
    p_actor_id: arg<string | null>(),
    /** The provider reference; null: the delivery's own id. */
    p_send_id: arg<string | null>(),
    /**
     * The reconcile job's retry: the failed delivery it retries (its package is resent, to its
     * address); `delivery_already_retried` when a newer attempt of it was begun meanwhile.
     */
    p_retry_of: arg<string | null>(),
    /** A request's limits; null for the reconcile job's retries (neither matched nor counted). */
    p_limits: arg<DeliveryLimits | null>(),
    /** How long the call that opens it holds it: reconcile does not ask about it meanwhile. */
    p_lease_seconds: num,
  }).returns<DeliveryBegun>(),
  einv_delivery_retry_later: service({
    p_org_id: str,
    p_delivery_id: str,
    p_send_id: str,
  }).returns<{ next_retry_at: string | null; gave_up_reason: string | null } | null>(),
  einv_reconcile_pick_open_deliveries: service({
    p_run_id: str,
    p_limit: num,
    p_grace_seconds: num,
    p_lease_seconds: num,
  }).returns<
    {
      delivery_id: string;
      org_id: string;
      document_type: DocumentKind;
      document_id: string;
      to: string;
      send_id: string;
      company_id: string;
      environment: Environment | null;
    }[]
  >(),
  einv_reconcile_pick_deliveries: service({ p_run_id: str, p_limit: num }).returns<
    {
      delivery_id: string;
      org_id: string;
      document_type: DocumentKind;
      document_id: string;
      to: string;
      attempt: number;
      send_id: string;
      created_by: string | null;
    }[]
  >(),
  einv_delivery_record: service({
    p_org_id: str,
    p_delivery_id: str,
    p_status: arg<"enviada" | "error">(),
    p_message: str,
    p_provider_reference: arg<string | null>(),
  }).returns<{
    document_type: DocumentKind;
    document_id: string;
    delivery_id: string;
    to: string;
    status: "enviada" | "error";
    message: string;
  }>(),
  einv_delivery_attachments: service({
    p_org_id: str,
    p_delivery_id: str,
    p_attachments: arg<DeliveryAttachmentRecord[]>(),
  }).returns<{ delivery_id: string; attachments: DeliveryAttachmentRecord[] }>(),
};

/** Every database API function the service calls, by name. */
export const CATALOGUE = {
  ...caller,
  ...credentials,
  ...integrations,
  ...lifecycle,
  ...authorizedLifecycle,
  ...creditNotes,
  ...debitNotes,
  ...testSets,
  ...idempotency,
  ...reconcile,
  ...records,
  ...events,
};

/** Each function's argument and result types, as the transports are called with them. */
export type ApiFunctions = {
  [F in keyof typeof CATALOGUE]: (typeof CATALOGUE)[F][typeof signature];
};

export type ApiFunctionName = keyof ApiFunctions;
