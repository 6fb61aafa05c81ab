/**
 * The catalogue's events area (supabase/migrations/…_events.sql): webhook endpoints, the drains
 * that send the outbox's events to them, and the outbox's pruning. All callable by `service_role`.
 */
import type { DocumentEvent, EventType } from "../../kernel/event.ts";
import { arg, bool, num, service, str } from "./catalogue-kit.ts";

/** An endpoint as its admin sees it: never a secret. */
export interface WebhookEndpointRow {
  webhook_id: string;
  url: string;
  /** null: every type. */
  events: EventType[] | null;
  enabled: boolean;
  /** Why the service disabled it (410 Gone, 3 days of failures); null when enabled or an admin did. */
  disabled_reason: string | null;
}

/** The sealed secrets that sign an endpoint's messages now: its own first, then one it replaced. */
export interface WebhookSecrets {
  secrets: string[];
}

/** A delivery a drain took: where to, with which secrets, what, and its attempt (the lease's token). */
export interface PickedWebhookDelivery extends WebhookSecrets {
  delivery_id: number;
  attempt: number;
  webhook_id: string;
  org_id: string;
  url: string;
  event: DocumentEvent;
}

/** How an attempt went, as a drain records it. */
export interface WebhookAttemptOutcome {
  delivered: boolean;
  /** The endpoint's HTTP status; absent when none came (refused, timed out). */
  status?: number;
  /** What went wrong, in our words (never the endpoint's). */
  error?: string;
  /** The endpoint's Retry-After, in seconds. */
  retry_after_seconds?: number;
  /** 410 Gone: the endpoint wants no more. */
  gone?: boolean;
}

/** One endpoint's sealed secrets, as a re-seal walks them. */
export interface SealedWebhookSecrets {
  id: string;
  org_id: string;
  secret_ciphertext: string;
  key_id: string;
  previous_secret_ciphertext: string | null;
  previous_key_id: string | null;
}

export const events = {
  einv_webhook_save: service({
    p_org_id: str,
    p_webhook_id: str,
    /** true: a new endpoint (`p_webhook_id` is its new id); false: an update of the org's endpoint. */
    p_create: bool,
    /** null on an update: keep. */
    p_url: arg<string | null>(),
    /** Taken only when `p_events_given`; null: every type. */
    p_events: arg<EventType[] | null>(),
    p_events_given: bool,
    /** null on an update: keep. */
    p_enabled: arg<boolean | null>(),
    /** A new endpoint's secret, or a rotation's; null: keep. */
    p_secret_ciphertext: arg<string | null>(),
    p_secret_key_id: arg<string | null>(),
    p_actor_id: arg<string | null>(),
    p_max_endpoints: num,
  }).returns<WebhookEndpointRow>(),
  einv_webhook_get: service({ p_org_id: str, p_webhook_id: str }).returns<
    WebhookEndpointRow & WebhookSecrets
  >(),
  einv_webhook_pick: service({
    /** null: every org's (the reconcile job's drain). */
    p_org_id: arg<string | null>(),
    p_limit: num,
    p_lease_seconds: num,
  }).returns<PickedWebhookDelivery[]>(),
  einv_webhook_record: service({
    p_delivery_id: num,
    p_attempt: num,
    p_outcome: arg<WebhookAttemptOutcome>(),
  }).returns<
    | { recorded: false }
    | { recorded: true; state: "delivered" | "failed" }
    | { recorded: true; state: "pending"; next_attempt_at: string }
  >(),
  einv_events_prune: service({ p_keep_days: num, p_limit: num }).returns<{ deleted: number }>(),
  einv_webhook_secret_list: service({ p_after: arg<string | null>(), p_limit: num }).returns<
    SealedWebhookSecrets[]
  >(),
  einv_webhook_secret_reseal: service({
    p_id: str,
    /** The secret a rotation replaced, rather than the current one. */
    p_previous: bool,
    p_expected_ciphertext: str,
    p_ciphertext: str,
    p_key_id: str,
  }).returns<boolean>(),
};
