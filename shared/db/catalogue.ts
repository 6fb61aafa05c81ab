/**
 * The catalogue of database API functions the service calls, by area, with their arguments, their
 * result and the one role each is granted to. `tests/db/catalogue.test.ts` compares it with
 * `pg_proc`, so a renamed argument or a changed grant fails a test, not a request.
 */
import type {
  ClaimEntry,
  CredentialRow,
  DeliveryAttachmentRecord,
  DocumentKind,
  DocumentRecord,
  Environment,
  FiscalStatus,
  MembershipRow,
  RecordedOutcome,
  RepresentationRow,
} from "./rows.ts";

/** Callable by `authenticated`: the caller's own membership. */
interface CallerFunctions {
  einv_caller_membership: { args: { p_org_id: string }; result: MembershipRow | null };
}

/** Callable by `service_role`: provider credentials, sealed. */
interface CredentialFunctions {
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
}

/** A stored credential as /integrations reads it: with the id of the key that sealed it. */
export interface StoredCredential extends CredentialRow {
  /** null for a row sealed before key ids were recorded (einv_credential_save). */
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
interface IntegrationFunctions {
  einv_integration_get: {
    args: { p_org_id: string; p_company_id: string; p_service: string; p_environment: string };
    result: StoredCredential | null;
  };
  einv_integration_save: {
    args: {
      p_org_id: string;
      p_company_id: string;
      p_service: string;
      p_environment: string;
      p_url: string;
      p_settings: Record<string, unknown>;
      p_api_key_ciphertext: string;
      p_api_key_hint: string;
      p_key_id: string;
      p_key_source: "given" | "saved";
      p_message: string;
      p_actor_id: string;
    };
    result: SavedCredential;
  };
  einv_integration_event: {
    args: {
      p_org_id: string;
      p_company_id: string;
      p_event: "credential_tested" | "credential_save_refused";
      p_service: string;
      p_environment: string;
      p_outcome: "ok" | "failed" | "refused_url" | "rejected" | "unverified";
      p_message: string;
      p_url: string | null;
      p_api_key_hint: string | null;
      p_key_source: "given" | "saved";
      p_actor_id: string;
    };
    result: null;
  };
  einv_credential_list: {
    args: { p_after: string | null; p_limit: number };
    result: SealedCredential[];
  };
  einv_credential_reseal: {
    args: { p_id: string; p_expected_ciphertext: string; p_api_key_ciphertext: string; p_key_id: string };
    result: boolean;
  };
}

/** Callable by `service_role`: the fiscal-document lifecycle, for any kind. */
interface LifecycleFunctions {
  einv_document_claim: {
    args: {
      p_org_id: string;
      p_kind: DocumentKind;
      p_document_ids: string[];
      p_reissue: boolean;
      p_actor_id: string;
      p_lease_seconds: number;
    };
    result: ClaimEntry[];
  };
  /** The claim, and the `p_service` credentials of the companies and environments it sends in. */
  einv_document_claim_sending: {
    args: {
      p_org_id: string;
      p_kind: DocumentKind;
      p_document_ids: string[];
      p_reissue: boolean;
      p_actor_id: string;
      p_lease_seconds: number;
      p_service: string;
    };
    result: { entries: ClaimEntry[]; credentials: CredentialRow[] };
  };
  einv_document_record: {
    args: {
      p_org_id: string;
      p_kind: DocumentKind;
      p_document_id: string;
      p_attempt: number;
      p_outcome: RecordedOutcome;
    };
    result: { document_id: string; status: FiscalStatus; message: string };
  };
  einv_document_get: {
    args: { p_org_id: string; p_kind: DocumentKind; p_document_id: string };
    result: DocumentRecord;
  };
  /** A document, and the `p_service` credential of its company in its environment (none: `[]`). */
  einv_document_get_with_credentials: {
    args: { p_org_id: string; p_kind: DocumentKind; p_document_id: string; p_service: string };
    result: { record: DocumentRecord; credentials: CredentialRow[] };
  };
  /**
   * What /representation reads: only the stored PDF when `p_inputs` are still the document's and
   * the stored PDF has `p_fingerprint`, else the whole document as the call above answers it with
   * the docsgen credential; either way with the document's current inputs (null for a kind without).
   */
  einv_document_representation_read: {
    args: {
      p_org_id: string;
      p_kind: DocumentKind;
      p_document_id: string;
      p_inputs: string | null;
      p_fingerprint: string | null;
    };
    result: { inputs: string | null } & (
      | { representation: RepresentationRow }
      | { record: DocumentRecord; credentials: CredentialRow[] }
    );
  };
  einv_document_refresh_record: {
    args: {
      p_org_id: string;
      p_kind: DocumentKind;
      p_document_id: string;
      p_expected_status: FiscalStatus;
      p_expected_attempt: number;
      p_outcome: Partial<RecordedOutcome> & { actor_id?: string };
    };
    result: {
      document_id: string;
      status: Exclude<FiscalStatus, "pendiente">;
      message: string;
      authority_code: string | null;
      checked_at: string;
    };
  };
}

/** Callable by `service_role`: credit notes, created and claimed in one call. */
interface CreditNoteFunctions {
  einv_credit_note_create: {
    args: {
      p_org_id: string;
      p_invoice_id: string;
      p_concept_code: string;
      p_reason: string;
      /** null: every line still uncredited. */
      p_line_ids: string[] | null;
      p_actor_id: string;
      p_lease_seconds: number;
    };
    result: ClaimEntry<"credit_note">;
  };
}

/**
 * Callable by `service_role`: the Idempotency-Key of every POST (shared/http/idempotency.ts). The
 * reasons of a conflict are reason codes (./reasons.ts).
 */
interface IdempotencyFunctions {
  einv_idempotency_begin: {
    args: { p_org_id: string; p_route: string; p_key: string; p_request_hash: string };
    result:
      | { outcome: "proceed"; claim_id: string }
      | { outcome: "replay"; status: number; response: unknown }
      | { outcome: "conflict"; reason: "idempotency_body_differs" | "idempotency_in_flight" };
  };
  einv_idempotency_finish: {
    args: {
      p_org_id: string;
      p_route: string;
      p_key: string;
      p_claim_id: string;
      /** null releases the key; otherwise the answer's status, kept with `p_response`. */
      p_status: number | null;
      p_response: unknown;
    };
    result: { outcome: "stored" | "released" | "lost" };
  };
}

/** Callable by `service_role`: the reconcile job (functions/reconcile). */
interface ReconcileFunctions {
  einv_reconcile_begin: { args: Record<never, never>; result: { run_id: string } };
  einv_reconcile_pick: {
    args: { p_run_id: string; p_limit: number; p_grace_seconds: number; p_lease_seconds: number };
    result: {
      kind: DocumentKind;
      document_id: string;
      org_id: string;
      company_id: string;
      environment: "uat" | "prd" | null;
      attempt_count: number;
    }[];
  };
  einv_reconcile_record: {
    args: {
      p_run_id: string;
      p_org_id: string;
      p_kind: DocumentKind;
      p_document_id: string;
      p_outcome: Partial<RecordedOutcome>;
    };
    result: { recorded: boolean; status?: FiscalStatus };
  };
  einv_reconcile_release: {
    args: { p_run_id: string; p_org_id: string; p_kind: DocumentKind; p_document_id: string };
    result: { released: boolean };
  };
  einv_reconcile_finish: {
    args: {
      p_run_id: string;
      p_settled: number;
      p_deliveries_retried: number;
      p_errors: unknown[];
      p_took_ms: number;
    };
    result: {
      run_id: string;
      picked: number;
      settled: number;
      still_open: number;
      deliveries_retried: number;
      took_ms: number;
    };
  };
}

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
  | { delivery_id: string; existing?: undefined; rate_limited?: undefined }
  | {
      delivery_id: string;
      existing: {
        invoice_id: string;
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
interface RecordFunctions {
  einv_representation_save: {
    args: {
      p_org_id: string;
      p_kind: DocumentKind;
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
    args: {
      p_org_id: string;
      p_invoice_id: string;
      p_recipient: string;
      p_actor_id: string | null;
      /** The provider reference; null: the delivery's own id. */
      p_send_id: string | null;
      /** A request's limits; null for the reconcile job's retries (neither matched nor counted). */
      p_limits: DeliveryLimits | null;
      /** How long the call that opens it holds it: reconcile does not ask about it meanwhile. */
      p_lease_seconds: number;
    };
    result: DeliveryBegun;
  };
  einv_delivery_retry_later: {
    args: { p_org_id: string; p_delivery_id: string; p_send_id: string };
    result: { next_retry_at: string | null; gave_up_reason: string | null } | null;
  };
  einv_delivery_link_retry: {
    args: { p_org_id: string; p_delivery_id: string; p_retry_of: string };
    result: { delivery_id: string; retry_of: string };
  };
  einv_reconcile_pick_open_deliveries: {
    args: { p_run_id: string; p_limit: number; p_grace_seconds: number; p_lease_seconds: number };
    result: {
      delivery_id: string;
      org_id: string;
      invoice_id: string;
      to: string;
      send_id: string;
      company_id: string;
      environment: Environment | null;
    }[];
  };
  einv_reconcile_pick_deliveries: {
    args: { p_run_id: string; p_limit: number };
    result: {
      delivery_id: string;
      org_id: string;
      invoice_id: string;
      to: string;
      attempt: number;
      send_id: string;
      created_by: string | null;
    }[];
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
  einv_delivery_attachments: {
    args: { p_org_id: string; p_delivery_id: string; p_attachments: DeliveryAttachmentRecord[] };
    result: { delivery_id: string; attachments: DeliveryAttachmentRecord[] };
  };
}

/**
 * `<F>_authorized`: the call `F`, made only when `p_user_id` is a member of the org with one of
 * `p_roles`; it answers the membership (null: none) and, when it was made, F's result. The first
 * call of a request that checks the caller in the same round trip (shared/http/authorize.ts).
 */
type Authorized<F extends keyof LifecycleFunctions> = {
  args: { p_user_id: string; p_roles: readonly string[] } & LifecycleFunctions[F]["args"];
  result: { membership: MembershipRow | null; result?: LifecycleFunctions[F]["result"] };
};

interface AuthorizedFunctions {
  einv_document_get_with_credentials_authorized: Authorized<"einv_document_get_with_credentials">;
  einv_document_claim_sending_authorized: Authorized<"einv_document_claim_sending">;
  einv_document_representation_read_authorized: Authorized<"einv_document_representation_read">;
}

export interface ApiFunctions
  extends CallerFunctions,
    AuthorizedFunctions,
    CredentialFunctions,
    LifecycleFunctions,
    CreditNoteFunctions,
    ReconcileFunctions,
    RecordFunctions,
    IdempotencyFunctions,
    IntegrationFunctions {}

export type ApiFunctionName = keyof ApiFunctions;

/**
 * Each function's one grantee and argument names, at run time: `tests/db/catalogue.test.ts` holds
 * them equal to `pg_proc`, and the type check below holds the names equal to the typed arguments.
 */
export const CATALOGUE = {
  einv_caller_membership: { role: "authenticated", args: ["p_org_id"] },
  einv_credential_get: {
    role: "service_role",
    args: ["p_org_id", "p_company_id", "p_service", "p_environment"],
  },
  einv_credential_save: {
    role: "service_role",
    args: [
      "p_org_id",
      "p_company_id",
      "p_service",
      "p_environment",
      "p_url",
      "p_settings",
      "p_api_key_ciphertext",
      "p_api_key_hint",
      "p_verified_at",
      "p_actor_id",
    ],
  },
  einv_document_claim: {
    role: "service_role",
    args: ["p_org_id", "p_kind", "p_document_ids", "p_reissue", "p_actor_id", "p_lease_seconds"],
  },
  einv_document_claim_sending: {
    role: "service_role",
    args: ["p_org_id", "p_kind", "p_document_ids", "p_reissue", "p_actor_id", "p_lease_seconds", "p_service"],
  },
  einv_document_record: {
    role: "service_role",
    args: ["p_org_id", "p_kind", "p_document_id", "p_attempt", "p_outcome"],
  },
  einv_document_get: { role: "service_role", args: ["p_org_id", "p_kind", "p_document_id"] },
  einv_document_get_with_credentials: {
    role: "service_role",
    args: ["p_org_id", "p_kind", "p_document_id", "p_service"],
  },
  einv_document_get_with_credentials_authorized: {
    role: "service_role",
    args: ["p_user_id", "p_roles", "p_org_id", "p_kind", "p_document_id", "p_service"],
  },
  einv_document_representation_read: {
    role: "service_role",
    args: ["p_org_id", "p_kind", "p_document_id", "p_inputs", "p_fingerprint"],
  },
  einv_document_representation_read_authorized: {
    role: "service_role",
    args: ["p_user_id", "p_roles", "p_org_id", "p_kind", "p_document_id", "p_inputs", "p_fingerprint"],
  },
  einv_document_claim_sending_authorized: {
    role: "service_role",
    args: [
      "p_user_id",
      "p_roles",
      "p_org_id",
      "p_kind",
      "p_document_ids",
      "p_reissue",
      "p_actor_id",
      "p_lease_seconds",
      "p_service",
    ],
  },
  einv_document_refresh_record: {
    role: "service_role",
    args: ["p_org_id", "p_kind", "p_document_id", "p_expected_status", "p_expected_attempt", "p_outcome"],
  },
  einv_credit_note_create: {
    role: "service_role",
    args: [
      "p_org_id",
      "p_invoice_id",
      "p_concept_code",
      "p_reason",
      "p_line_ids",
      "p_actor_id",
      "p_lease_seconds",
    ],
  },
  einv_reconcile_begin: { role: "service_role", args: [] },
  einv_reconcile_pick: {
    role: "service_role",
    args: ["p_run_id", "p_limit", "p_grace_seconds", "p_lease_seconds"],
  },
  einv_reconcile_record: {
    role: "service_role",
    args: ["p_run_id", "p_org_id", "p_kind", "p_document_id", "p_outcome"],
  },
  einv_reconcile_release: { role: "service_role", args: ["p_run_id", "p_org_id", "p_kind", "p_document_id"] },
  einv_reconcile_finish: {
    role: "service_role",
    args: ["p_run_id", "p_settled", "p_deliveries_retried", "p_errors", "p_took_ms"],
  },
  einv_representation_save: {
    role: "service_role",
    args: [
      "p_org_id",
      "p_kind",
      "p_document_id",
      "p_path",
      "p_filename",
      "p_fingerprint",
      "p_stamped",
      "p_renderer",
    ],
  },
  einv_delivery_retry_later: { role: "service_role", args: ["p_org_id", "p_delivery_id", "p_send_id"] },
  einv_delivery_link_retry: { role: "service_role", args: ["p_org_id", "p_delivery_id", "p_retry_of"] },
  einv_reconcile_pick_deliveries: { role: "service_role", args: ["p_run_id", "p_limit"] },
  einv_reconcile_pick_open_deliveries: {
    role: "service_role",
    args: ["p_run_id", "p_limit", "p_grace_seconds", "p_lease_seconds"],
  },
  einv_delivery_begin: {
    role: "service_role",
    args: [
      "p_org_id",
      "p_invoice_id",
      "p_recipient",
      "p_actor_id",
      "p_send_id",
      "p_limits",
      "p_lease_seconds",
    ],
  },
  einv_delivery_record: {
    role: "service_role",
    args: ["p_org_id", "p_delivery_id", "p_status", "p_message", "p_provider_reference"],
  },
  einv_delivery_attachments: {
    role: "service_role",
    args: ["p_org_id", "p_delivery_id", "p_attachments"],
  },
  einv_idempotency_begin: {
    role: "service_role",
    args: ["p_org_id", "p_route", "p_key", "p_request_hash"],
  },
  einv_idempotency_finish: {
    role: "service_role",
    args: ["p_org_id", "p_route", "p_key", "p_claim_id", "p_status", "p_response"],
  },
  einv_integration_get: {
    role: "service_role",
    args: ["p_org_id", "p_company_id", "p_service", "p_environment"],
  },
  einv_integration_save: {
    role: "service_role",
    args: [
      "p_org_id",
      "p_company_id",
      "p_service",
      "p_environment",
      "p_url",
      "p_settings",
      "p_api_key_ciphertext",
      "p_api_key_hint",
      "p_key_id",
      "p_key_source",
      "p_message",
      "p_actor_id",
    ],
  },
  einv_integration_event: {
    role: "service_role",
    args: [
      "p_org_id",
      "p_company_id",
      "p_event",
      "p_service",
      "p_environment",
      "p_outcome",
      "p_message",
      "p_url",
      "p_api_key_hint",
      "p_key_source",
      "p_actor_id",
    ],
  },
  einv_credential_list: { role: "service_role", args: ["p_after", "p_limit"] },
  einv_credential_reseal: {
    role: "service_role",
    args: ["p_id", "p_expected_ciphertext", "p_api_key_ciphertext", "p_key_id"],
  },
} as const satisfies Record<
  ApiFunctionName,
  { role: "authenticated" | "service_role"; args: readonly string[] }
>;

/** `true` for each function whose listed argument names are exactly its typed arguments' keys. */
type ArgumentsAgree = {
  [F in ApiFunctionName]: [keyof ApiFunctions[F]["args"]] extends [(typeof CATALOGUE)[F]["args"][number]]
    ? [(typeof CATALOGUE)[F]["args"][number]] extends [keyof ApiFunctions[F]["args"]]
      ? true
      : F
    : F;
};
// Fails to compile, naming the function, when a list and its type disagree.
const argumentsAgree: { [F in ApiFunctionName]: true } = null as unknown as ArgumentsAgree;
void argumentsAgree;
