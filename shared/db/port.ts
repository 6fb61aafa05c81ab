/**
 * The `Db` port: every read and state change goes through a database API function (a SQL function
 * in `public`, prefixed `einv_`). Two transports implement it — supabase-js (`rpc`) and a direct
 * SQL connection — and both must behave the same, which `tests/db/contract.test.ts` checks.
 */

/** The verified identity of the caller, as the database sees it through `request.jwt.claims`. */
export interface Caller {
  /** The raw bearer token, forwarded as is by the supabase transport. */
  accessToken: string;
  /** The verified claims; `sub` is the user id. */
  claims: Record<string, unknown> & { sub: string };
}

/** The database API functions the service calls, and the role each is granted to. */
export interface ApiFunctions {
  // authenticated
  einv_caller_membership: { args: { p_org_id: string }; result: MembershipRow | null };
  // service_role
  einv_credential_get: {
    args: { p_org_id: string; p_company_id: string; p_service: string; p_environment: string };
    result: CredentialRow | null;
  };
  einv_credential_save: {
    args: {
      p_org_id: string;
      p_company_id: string;
      p_service: string;
      p_environment: string;
      p_url: string | null;
      p_settings: Record<string, unknown> | null;
      p_api_key_ciphertext: string | null;
      p_api_key_hint: string | null;
      p_verified_at: string | null;
      p_actor_id: string | null;
    };
    result: Omit<CredentialRow, "org_id" | "api_key_ciphertext">;
  };
  einv_transmit_claim: {
    args: {
      p_org_id: string;
      p_invoice_ids: string[];
      p_reissue: boolean;
      p_actor_id: string;
      p_lease_seconds: number;
    };
    result: ClaimEntry[];
  };
  einv_transmit_record: {
    args: { p_org_id: string; p_invoice_id: string; p_attempt: number; p_outcome: RecordedOutcome };
    result: { invoice_id: string; status: FiscalStatus; message: string };
  };
  einv_invoice_get: { args: { p_org_id: string; p_invoice_id: string }; result: InvoiceRecord };
  einv_refresh_record: {
    args: {
      p_org_id: string;
      p_invoice_id: string;
      p_expected_status: FiscalStatus;
      p_expected_attempt: number;
      p_outcome: Partial<RecordedOutcome> & { actor_id?: string };
    };
    result: {
      invoice_id: string;
      status: Exclude<FiscalStatus, "pendiente">;
      message: string;
      authority_code: string | null;
      checked_at: string;
    };
  };
  einv_representation_save: {
    args: {
      p_org_id: string;
      p_document_type: "invoice" | "credit_note";
      p_document_id: string;
      p_path: string;
      p_filename: string;
      p_fingerprint: string;
      p_stamped: boolean;
      p_renderer: "builtin" | "docsgen";
    };
    result: RepresentationRow;
  };
  einv_delivery_begin: {
    args: { p_org_id: string; p_invoice_id: string; p_recipient: string; p_actor_id: string };
    result: { delivery_id: string };
  };
  einv_delivery_record: {
    args: {
      p_org_id: string;
      p_delivery_id: string;
      p_status: "enviada" | "error";
      p_message: string;
      p_provider_reference: string | null;
    };
    result: {
      invoice_id: string;
      delivery_id: string;
      to: string;
      status: "enviada" | "error";
      message: string;
    };
  };
}

export interface RepresentationRow {
  org_id: string;
  document_type: "invoice" | "credit_note";
  document_id: string;
  path: string;
  filename: string;
  fingerprint: string;
  stamped: boolean;
  renderer: "builtin" | "docsgen";
  generated_at: string;
}

/** An invoice as the service reads it: the document, its fiscal state, its current PDF. */
export interface InvoiceRecord {
  document: InvoiceDocumentRow;
  fiscal: {
    status: FiscalStatus;
    authority_code: string | null;
    qr_text: string | null;
    provider_reference: string | null;
    environment: "uat" | "prd" | null;
    last_message: string | null;
    transmitted_at: string | null;
    attempt_count: number;
    /** A transmission holds the invoice right now. */
    in_flight: boolean;
  };
  representation: RepresentationRow | null;
}

export type ApiFunctionName = keyof ApiFunctions;

export interface MembershipRow {
  org_id: string;
  user_id: string;
  role: string;
}

export interface CredentialRow {
  org_id: string;
  company_id: string;
  service: string;
  environment: "uat" | "prd";
  url: string | null;
  settings: Record<string, unknown>;
  api_key_ciphertext: string | null;
  api_key_hint: string | null;
  verified_at: string | null;
}

export type FiscalStatus = "pendiente" | "en_proceso" | "transmitida" | "error";

/** One invoice of a transmit claim, in request order. */
export type ClaimEntry =
  | { invoice_id: string; action: "skip"; status: FiscalStatus; message: string }
  | {
      invoice_id: string;
      action: "send" | "query";
      status: "en_proceso";
      message: string;
      attempt: number;
      /** The attempt whose submit may have reached the provider (its key is reused), or null. */
      submitted_attempt: number | null;
      environment: "uat" | "prd";
      company_id: string;
      /** The invoice row with `lines` and `company`, as `einv_private.invoice_document` builds it. */
      document: InvoiceDocumentRow;
    };

export interface InvoiceDocumentRow {
  id: string;
  org_id: string;
  company_id: string;
  number: string;
  issue_date: string;
  issue_time: string;
  due_date: string | null;
  currency: string;
  payment_form: string;
  payment_method: string;
  notes: string | null;
  buyer_id_type: string;
  buyer_id_number: string | null;
  buyer_check_digit: string | null;
  buyer_name: string | null;
  buyer_email: string | null;
  buyer_address: string | null;
  buyer_city_code: string | null;
  buyer_phone: string | null;
  subtotal: number;
  tax_total: number;
  total: number;
  lines: {
    position: number;
    code: string | null;
    description: string;
    unit_code: string;
    quantity: number;
    unit_price: number;
    line_extension: number;
    tax_code: "01" | "04" | "ZZ";
    tax_rate: number;
    tax_amount: number;
  }[];
  company: Record<string, unknown> & {
    nit: string;
    check_digit: string;
    legal_name: string;
    technical_key: string | null;
  };
}

export interface RecordedOutcome {
  /** `pendiente`: released without anything sent (checks failed, no credential). */
  status: "transmitida" | "error" | "en_proceso" | "pendiente";
  /** Set when this attempt submitted: the attempt number its idempotency key was derived from. */
  submitted_attempt?: number;
  message: string;
  authority_code?: string;
  qr_text?: string;
  provider_reference?: string;
  validated_at?: string;
  detail?: Record<string, unknown>;
}

/** A database session acting as one role: the caller (RLS applies) or the service. */
export interface DbScope {
  call<F extends ApiFunctionName>(fn: F, args: ApiFunctions[F]["args"]): Promise<ApiFunctions[F]["result"]>;
}

export interface Db {
  /** Acts as the signed-in user: `authenticated` role, the caller's claims, RLS in force. */
  asUser(caller: Caller): DbScope;
  /** Acts as the service: `service_role`. Callers check org ownership themselves. */
  asService(): DbScope;
  close(): Promise<void>;
}

const FUNCTION_NAME = /^einv_[a-z0-9_]+$/;
const ARGUMENT_NAME = /^p_[a-z0-9_]+$/;

/** Guards the names a transport splices into SQL or a URL; both come from code, never from input. */
export function assertApiName(fn: string, args: Record<string, unknown>): void {
  if (!FUNCTION_NAME.test(fn)) throw new Error(`not a database API function: ${fn}`);
  for (const name of Object.keys(args)) {
    if (!ARGUMENT_NAME.test(name)) throw new Error(`not a database API argument: ${name}`);
  }
}
