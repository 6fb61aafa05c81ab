/**
 * The typed client's `onDocumentStatus` (client/realtime.ts) over supabase-js's channel API. Realtime
 * itself cannot run here: the database side (what is broadcast, who may join) is tested on
 * PostgreSQL (tests/db/outbox.test.ts, tests/db/realtime.test.ts); here, that the client asks the
 * real supabase-js for the right channel — the org's topic, private, the broadcast event the
 * database sends — after handing the socket the user's token, hands the handler each event's
 * payload, and leaves the channel when stopped; and that subscribers of one org on one client share
 * supabase-js's one channel of the topic, each seeing it joined, until the last one stops — over a
 * stand-in for Realtime's WebSocket (the network edge: supabase-js's own `transport` option).
 */
import { createClient } from "@supabase/supabase-js";
import { describe, expect, it } from "vitest";
import { createEinvoicingClient, type DocumentStatusEvent, type RealtimeLike } from "../../client/index.ts";
import { DOCUMENT_EVENT_EXAMPLE } from "../../shared/events/schema.ts";
import { REALTIME_EVENT } from "../../shared/kernel/event.ts";

const ORG = "11111111-1111-4111-8111-111111111111";

describe("onDocumentStatus", () => {
  it("joins the org's private channel for the database's broadcast event, with the real supabase-js", async () => {
    // nothing listens on port 9: the socket's connection fails quietly, as it would offline
    const supabase = createClient("http://127.0.0.1:9", "sb_publishable_test", {
      accessToken: async () => "a-user-token",
    });
    const stop = createEinvoicingClient(supabase).onDocumentStatus(ORG, () => {});
    await expect.poll(() => supabase.getChannels().length).toBe(1);
    const [channel] = supabase.getChannels();
    expect(channel?.topic).toBe(`realtime:org:${ORG}:documents`);
    expect(channel?.private).toBe(true);
    expect(channel?.bindings.broadcast?.map((b) => b.filter)).toEqual([{ event: REALTIME_EVENT }]);
    await stop();
    expect(supabase.getChannels()).toEqual([]);
    await supabase.realtime.disconnect();
  });

  it("sets the user's token on the socket first, hands over each event's payload, and leaves", async () => {
    const calls: string[] = [];
    let deliver: ((message: { type: "broadcast"; event: string; payload: unknown }) => void) | undefined;
    const channel = {
      on(_type: "broadcast", filter: { event: string }, callback: typeof deliver) {
        calls.push(`on ${filter.event}`);
        deliver = callback;
        return channel;
      },
      subscribe(callback?: (status: "SUBSCRIBED") => void) {
        calls.push("subscribe");
        callback?.("SUBSCRIBED");
        return channel;
      },
    };
    const realtime: RealtimeLike = {
      realtime: {
        setAuth: async (token) => {
          calls.push(`setAuth ${token}`);
        },
      },
      channel: (topic, options) => {
        calls.push(`channel ${topic} private=${options.config.private}`);
        return channel as never;
      },
      removeChannel: async () => {
        calls.push("removeChannel");
      },
    };
    const supabase = {
      ...realtime,
      functions: { invoke: async () => ({ data: null, error: null }) },
      storage: {},
    };
    const events: DocumentStatusEvent[] = [];
    const statuses: string[] = [];
    const stop = createEinvoicingClient(supabase as never).onDocumentStatus(ORG, (e) => events.push(e), {
      onSubscription: (status) => statuses.push(status),
    });
    await expect.poll(() => deliver).toBeDefined();
    deliver?.({ type: "broadcast", event: REALTIME_EVENT, payload: DOCUMENT_EVENT_EXAMPLE });
    expect(events).toEqual([DOCUMENT_EVENT_EXAMPLE]);
    expect(statuses).toEqual(["SUBSCRIBED"]);
    await stop();
    expect(calls).toEqual([
      "setAuth undefined",
      `channel org:${ORG}:documents private=true`,
      `on ${REALTIME_EVENT}`,
      "subscribe",
      "removeChannel",
    ]);
  });

  it("reports a token it could not hand the socket as a refused join, and joins nothing", async () => {
    const calls: string[] = [];
    const supabase = {
      realtime: {
        setAuth: async () => {
          throw new Error("the session could not be read");
        },
      },
      channel: () => {
        calls.push("channel");
        throw new Error("never reached");
      },
      removeChannel: async () => calls.push("removeChannel"),
      functions: { invoke: async () => ({ data: null, error: null }) },
      storage: {},
    };
    const statuses: [string, string | undefined][] = [];
    const stop = createEinvoicingClient(supabase as never).onDocumentStatus(ORG, () => {}, {
      onSubscription: (status, error) => statuses.push([status, error?.message]),
    });
    await expect.poll(() => statuses).toEqual([["CHANNEL_ERROR", "the session could not be read"]]);
    await stop();
    expect(calls).toEqual([]);
  });

  it("says what it needs when given a client without Realtime", () => {
    const bare = { functions: { invoke: async () => ({ data: null, error: null }) }, storage: {} };
    expect(() => createEinvoicingClient(bare as never).onDocumentStatus(ORG, () => {})).toThrow(
      "onDocumentStatus needs a supabase-js client",
    );
  });
});

/** Phoenix's JSON frame (serializer 2.0.0): [join_ref, ref, topic, event, payload]. */
type Frame = [string | null, string | null, string, string, Record<string, unknown>];

/**
 * Realtime's WebSocket as supabase-js sees it, on no network: the socket opens at once, every join,
 * leave and heartbeat is answered `ok`, and the test pushes broadcasts. It records what it was sent.
 */
function realtimeStandIn() {
  const sent: Frame[] = [];
  const sockets: StandInSocket[] = [];
  class StandInSocket {
    static readonly CONNECTING = 0;
    static readonly OPEN = 1;
    static readonly CLOSING = 2;
    static readonly CLOSED = 3;
    readyState = 0;
    binaryType = "arraybuffer";
    onopen: (() => void) | null = null;
    onmessage: ((event: { data: string }) => void) | null = null;
    onclose: ((event: { code: number; reason: string; wasClean: boolean }) => void) | null = null;
    onerror: ((error: unknown) => void) | null = null;
    constructor(readonly url: string) {
      sockets.push(this);
      setTimeout(() => {
        this.readyState = 1;
        this.onopen?.();
      }, 0);
    }
    send(data: string) {
      const frame = JSON.parse(data) as Frame;
      sent.push(frame);
      const [joinRef, ref, topic, event] = frame;
      if (["phx_join", "phx_leave", "heartbeat"].includes(event)) {
        this.push([joinRef, ref, topic, "phx_reply", { status: "ok", response: {} }]);
      }
    }
    close(code = 1000, reason = "") {
      this.readyState = 3;
      setTimeout(() => this.onclose?.({ code, reason, wasClean: true }), 0);
    }
    push(frame: Frame) {
      setTimeout(() => this.onmessage?.({ data: JSON.stringify(frame) }), 0);
    }
  }
  return {
    transport: StandInSocket,
    /** The events the client sent on `topic` (phx_join, phx_leave, …), in order. */
    sentOn: (topic: string) => sent.filter((f) => f[2] === `realtime:${topic}`).map((f) => f[3]),
    /** A broadcast on `topic`, as Realtime sends one the database queued. */
    broadcast(topic: string, payload: unknown) {
      for (const socket of sockets.filter((s) => s.readyState === 1)) {
        socket.push([
          null,
          null,
          `realtime:${topic}`,
          "broadcast",
          { type: "broadcast", event: REALTIME_EVENT, payload },
        ]);
      }
    },
  };
}

describe("two subscribers of one org on one client", () => {
  it("share one channel: both see it joined and get every event; the first stop leaves the second listening", async () => {
    const realtime = realtimeStandIn();
    const supabase = createClient("http://127.0.0.1:9", "sb_publishable_test", {
      accessToken: async () => "a-user-token",
      realtime: { transport: realtime.transport as never },
    });
    const einvoicing = createEinvoicingClient(supabase);
    const first: { statuses: string[]; events: DocumentStatusEvent[] } = { statuses: [], events: [] };
    const second: { statuses: string[]; events: DocumentStatusEvent[] } = { statuses: [], events: [] };
    const stopFirst = einvoicing.onDocumentStatus(ORG, (e) => first.events.push(e), {
      onSubscription: (status) => first.statuses.push(status),
    });
    await expect.poll(() => first.statuses).toEqual(["SUBSCRIBED"]);
    const stopSecond = einvoicing.onDocumentStatus(ORG, (e) => second.events.push(e), {
      onSubscription: (status) => second.statuses.push(status),
    });
    await expect.poll(() => second.statuses).toEqual(["SUBSCRIBED"]);
    expect(supabase.getChannels()).toHaveLength(1);

    const one = { ...DOCUMENT_EVENT_EXAMPLE, id: "evt_1" };
    realtime.broadcast(`org:${ORG}:documents`, one);
    await expect.poll(() => [first.events, second.events]).toEqual([[one], [one]]);

    await stopFirst();
    expect(supabase.getChannels()).toHaveLength(1);
    expect(realtime.sentOn(`org:${ORG}:documents`)).toEqual(["phx_join"]);
    const two = { ...DOCUMENT_EVENT_EXAMPLE, id: "evt_2" };
    realtime.broadcast(`org:${ORG}:documents`, two);
    await expect.poll(() => second.events).toEqual([one, two]);
    expect(first.events).toEqual([one]);

    await stopSecond();
    expect(supabase.getChannels()).toEqual([]);
    expect(realtime.sentOn(`org:${ORG}:documents`)).toEqual(["phx_join", "phx_leave"]);
    // a subscriber after the last one stopped joins anew
    const third: string[] = [];
    const stopThird = einvoicing.onDocumentStatus(ORG, () => {}, { onSubscription: (s) => third.push(s) });
    await expect.poll(() => third).toEqual(["SUBSCRIBED"]);
    await stopThird();
    expect(realtime.sentOn(`org:${ORG}:documents`)).toEqual([
      "phx_join",
      "phx_leave",
      "phx_join",
      "phx_leave",
    ]);
    await supabase.realtime.disconnect();
  });

  it("leaves nothing behind when both stop before the channel was joined", async () => {
    const realtime = realtimeStandIn();
    const supabase = createClient("http://127.0.0.1:9", "sb_publishable_test", {
      accessToken: async () => "a-user-token",
      realtime: { transport: realtime.transport as never },
    });
    const einvoicing = createEinvoicingClient(supabase);
    const stops = [einvoicing.onDocumentStatus(ORG, () => {}), einvoicing.onDocumentStatus(ORG, () => {})];
    await Promise.all(stops.map((stop) => stop()));
    expect(supabase.getChannels()).toEqual([]);
    await supabase.realtime.disconnect();
  });
});
