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

/** One subscriber of a topic: its handler and its status callback. */
interface Subscriber {
  handler: (event: DocumentStatusEvent) => void;
  onSubscription?: StatusOptions["onSubscription"];
  /** Whether it was told a state already: then the channel's last one is not told it again. */
  told?: boolean;
}

/** The one channel of a topic on one client, and everyone listening on it. */
interface SharedChannel {
  subscribers: Set<Subscriber>;
  /** The last state supabase-js reported, told to a subscriber that joins later. */
  last?: [SubscribeStatus, Error | undefined];
  channel?: RealtimeChannelLike;
  /** Settles once the channel was asked for (or the token could not be handed over). */
  joined: Promise<void>;
  /** Set while the last subscriber's stop removes the channel: a new one waits for it. */
  removed?: Promise<unknown>;
}

/**
 * supabase-js hands out the channel it already has for a topic (`RealtimeClient.channel()` returns
 * an existing one of the same topic, realtime-js 2.109.0 `RealtimeClient.js`), and a channel that is
 * already joined ignores a second `subscribe()`. So every onDocumentStatus of one org on one client
 * shares one channel here: it is joined by the first subscriber, each later one is told the state it
 * is in, and it is removed when the last one stops — not by the first stop, which would silence the
 * others.
 */
const channelsOf = new WeakMap<RealtimeLike, Map<string, SharedChannel>>();

/**
 * Calls `handler` with every event of the organization while subscribed; answers the function that
 * stops it. Subscribers of the same organization on the same client share one channel, which is
 * left when the last of them stops.
 */
export function onDocumentStatus(
  supabase: RealtimeLike,
  orgId: string,
  handler: (event: DocumentStatusEvent) => void,
  options: StatusOptions = {},
): () => Promise<void> {
  const topic = documentsTopic(orgId);
  const subscriber: Subscriber = { handler, onSubscription: options.onSubscription };
  let shared: SharedChannel | undefined;
  let stopped = false;
  const started = (async () => {
    let channels = channelsOf.get(supabase);
    if (!channels) {
      channels = new Map();
      channelsOf.set(supabase, channels);
    }
    // a channel being removed by its last subscriber's stop is not joined again: wait, then start anew
    for (let current = channels.get(topic); current?.removed; current = channels.get(topic)) {
      await current.removed;
    }
    if (stopped) return;
    const existing = channels.get(topic);
    if (existing) {
      shared = existing;
      existing.subscribers.add(subscriber);
      await existing.joined;
      if (existing.last && !subscriber.told && existing.subscribers.has(subscriber)) {
        subscriber.told = true;
        subscriber.onSubscription?.(...existing.last);
      }
      return;
    }
    const created: SharedChannel = { subscribers: new Set([subscriber]), joined: Promise.resolve() };
    shared = created;
    channels.set(topic, created);
    created.joined = join(supabase, topic, created);
    await created.joined;
  })();
  return async () => {
    if (stopped) return;
    stopped = true;
    await started;
    const mine = shared;
    if (!mine?.subscribers.delete(subscriber) || mine.subscribers.size > 0) return;
    const channels = channelsOf.get(supabase);
    mine.removed = (async () => {
      try {
        if (mine.channel) await supabase.removeChannel(mine.channel);
      } finally {
        if (channels?.get(topic) === mine) channels.delete(topic);
      }
    })();
    await mine.removed;
  };
}

/** Hands the socket the user's token, then joins the topic's private channel for every subscriber. */
async function join(supabase: RealtimeLike, topic: string, shared: SharedChannel): Promise<void> {
  const tell = (status: SubscribeStatus, error?: Error) => {
    // closed (Realtime closed it from its side, or it was removed): supabase-js has dropped the
    // channel, so a subscriber that starts afterwards must join a new one, not be told CLOSED
    if (status === "CLOSED") {
      const channels = channelsOf.get(supabase);
      if (channels?.get(topic) === shared) channels.delete(topic);
    }
    shared.last = [status, error];
    for (const s of [...shared.subscribers]) {
      s.told = true;
      s.onSubscription?.(status, error);
    }
  };
  // a private channel is authorised with the user's token: hand the socket the current session's
  try {
    await supabase.realtime.setAuth();
  } catch (error) {
    // said as a refused join would be, rather than left to reject with nobody listening; the next
    // subscriber tries again with a channel of its own
    const channels = channelsOf.get(supabase);
    if (channels?.get(topic) === shared) channels.delete(topic);
    tell("CHANNEL_ERROR", error instanceof Error ? error : new Error(String(error)));
    return;
  }
  if (shared.subscribers.size === 0) return; // every subscriber stopped meanwhile
  shared.channel = supabase
    .channel(topic, { config: { private: true } })
    .on("broadcast", { event: STATUS_EVENT }, (message) => {
      for (const s of [...shared.subscribers]) s.handler(message.payload as DocumentStatusEvent);
    })
    .subscribe((status, error) => tell(status, error));
}
