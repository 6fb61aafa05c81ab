/**
 * Status changes pushed to the web app: the events the service's database broadcasts on the
 * organization's private Realtime channel `org:<org_id>:documents` ("Broadcast from Database"), one
 * per status change of an invoice, a credit note or a delivery, the same events its webhooks carry
 * (docs/api.md, "Events"). Only members of the organization may join the channel (RLS on
 * realtime.messages); the join carries the signed-in user's token (`realtime.setAuth()`).
 *
 *   const stop = onDocumentStatus(supabase, orgId, (event) => {
 *     if (event.type === "invoice.transmitida") refetch(event.document_id);
 *   });
 *   // later: await stop();
 *
 * Realtime delivers while the socket is joined: an app that was away reads the current state again
 * (the tables, through PostgREST) rather than expecting every event it missed.
 */
import type { webhooks } from "./openapi.ts";

/**
 * One event: `{ id, sequence, type, org_id, kind, document_id, status, code, occurred_at }`; a
 * document's events sort by `sequence` (the id is random).
 */
export type DocumentStatusEvent =
  webhooks["documentStatus"]["post"]["requestBody"]["content"]["application/json"]["data"];
/** `invoice.transmitida`, `credit_note.error`, `delivery.enviada`, … */
export type DocumentEventType = DocumentStatusEvent["type"];

/** The broadcast event every status change is sent under. */
export const STATUS_EVENT = "status_changed";

/** The organization's private channel. */
export const documentsTopic = (orgId: string) => `org:${orgId}:documents`;

/** What onDocumentStatus needs of a supabase-js client (`createClient(…)` is one). */
export interface RealtimeLike {
  channel(topic: string, options: { config: { private: boolean } }): RealtimeChannelLike;
  removeChannel(channel: RealtimeChannelLike): Promise<unknown>;
  realtime: { setAuth(token?: string | null): Promise<void> };
}

export interface RealtimeChannelLike {
  on(
    type: "broadcast",
    filter: { event: string },
    callback: (message: { type: "broadcast"; event: string; [key: string]: unknown }) => void,
  ): RealtimeChannelLike;
  subscribe(callback?: (status: `${SubscribeStatus}`, error?: Error) => void): RealtimeChannelLike;
}

/** supabase-js's channel states: SUBSCRIBED once joined; CHANNEL_ERROR when the join was refused. */
export type SubscribeStatus = "SUBSCRIBED" | "TIMED_OUT" | "CLOSED" | "CHANNEL_ERROR";

export interface StatusOptions {
  /** The channel's state as supabase-js reports it (a refused join: CHANNEL_ERROR with the reason). */
  onSubscription?: (status: SubscribeStatus, error?: Error) => void;
}

/**
 * Calls `handler` with every event of the organization while subscribed; answers the function that
 * leaves the channel.
 */
export function onDocumentStatus(
  supabase: RealtimeLike,
  orgId: string,
  handler: (event: DocumentStatusEvent) => void,
  options: StatusOptions = {},
): () => Promise<void> {
  let channel: RealtimeChannelLike | undefined;
  let left = false;
  const joined = (async () => {
    // a private channel is authorised with the user's token: hand the socket the current session's
    try {
      await supabase.realtime.setAuth();
    } catch (error) {
      // said as a refused join would be, rather than left to reject with nobody listening
      options.onSubscription?.("CHANNEL_ERROR", error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (left) return;
    channel = supabase
      .channel(documentsTopic(orgId), { config: { private: true } })
      .on("broadcast", { event: STATUS_EVENT }, (message) => handler(message.payload as DocumentStatusEvent))
      .subscribe((status, error) => options.onSubscription?.(status, error));
  })();
  return async () => {
    left = true;
    await joined;
    if (channel) await supabase.removeChannel(channel);
  };
}
