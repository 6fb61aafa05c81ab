/**
 * The events the service announces: one per status change of an invoice, a credit note, a delivery
 * or a credential, written by the database in the change's own transaction
 * (supabase/migrations/…_events.sql), broadcast on the organization's private Realtime channel and
 * sent to its webhooks. This is the closed list of their types and the shape every one of them has;
 * docs/api.md ("Events") says the same for the web app, and a test holds the two equal.
 */
import type { ResultCode } from "./result-codes.ts";

/** Each kind's statuses, as its table (or, for a credential, its save) has them. */
export const EVENT_STATUSES = {
  invoice: ["pendiente", "en_proceso", "transmitida", "error"],
  credit_note: ["en_proceso", "emitida", "error", "descartada"],
  debit_note: ["en_proceso", "emitida", "error"],
  delivery: ["enviada", "error"],
  credential: ["saved", "rejected"],
} as const;

export type EventKind = keyof typeof EVENT_STATUSES;

/** `<kind>.<status>`: `invoice.transmitida`, `credit_note.error`, `delivery.enviada`, `credential.saved`. */
export type EventType = {
  [K in EventKind]: `${K}.${(typeof EVENT_STATUSES)[K][number]}`;
}[EventKind];

/** Every event type, in the list's order. */
export const EVENT_TYPES: readonly EventType[] = (Object.keys(EVENT_STATUSES) as EventKind[]).flatMap(
  (kind) => EVENT_STATUSES[kind].map((status) => `${kind}.${status}` as EventType),
);

/**
 * A credential event's code: saved, `verified` (the provider accepted the key); refused,
 * `rejected` (the provider refused the key), `unverified` (the provider could not be asked) or
 * `refused_url` (the url policy refused the address).
 */
export const CREDENTIAL_CODES = ["verified", "rejected", "unverified", "refused_url"] as const;
export type CredentialCode = (typeof CREDENTIAL_CODES)[number];

/**
 * One event: the same object on Realtime (the broadcast's payload) and in a webhook (`data`). Thin:
 * what changed and where, never a message, an address or a provider's text; read the document
 * through the API (or PostgREST) for the rest.
 */
export interface DocumentEvent {
  /** `evt_` and 32 random hex digits (it counts nothing); the webhook-id too. */
  id: string;
  /** The event's place among its document's events, 1, 2, 3…: a document's events sort by it. */
  sequence: number;
  type: EventType;
  org_id: string;
  kind: EventKind;
  /** The invoice, credit note or delivery; for a credential, its company. */
  document_id: string;
  status: string;
  /** The outcome's result code (docs/api.md, "Result codes"), or a credential's code. */
  code: ResultCode | CredentialCode | null;
  /** When the change was written (ISO 8601, UTC, microseconds). */
  occurred_at: string;
}

/** The Realtime broadcast event the database sends each event under, on `org:<org_id>:documents`. */
export const REALTIME_EVENT = "status_changed";

/** An organization's private channel. */
export const documentsTopic = (orgId: string) => `org:${orgId}:documents`;
