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
import { createEinvoicingClient } from "../../client/index.ts";
import { DOCUMENT_EVENT_EXAMPLE } from "../../shared/events/schema.ts";
import { REALTIME_EVENT } from "../../shared/kernel/event.ts";

const ORG = "11111111-1111-4111-8111-111111111111";

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
    /** Realtime closing the channel from its side (phx_close), as it does when it ends a join. */
    close(topic: string) {
      for (const socket of sockets.filter((s) => s.readyState === 1)) {
        const join = sent.filter((f) => f[2] === `realtime:${topic}` && f[3] === "phx_join").at(-1);
        socket.push([join?.[0] ?? null, null, `realtime:${topic}`, "phx_close", {}]);
      }
    },
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

describe("Realtime closes the shared channel from its side", () => {
  it("a subscriber that starts afterwards joins anew, as it did before the channels were shared", async () => {
    const realtime = realtimeStandIn();
    const supabase = createClient("http://127.0.0.1:9", "sb_publishable_test", {
      accessToken: async () => "a-user-token",
      realtime: { transport: realtime.transport as never },
    });
    const einvoicing = createEinvoicingClient(supabase);
    const first: string[] = [];
    einvoicing.onDocumentStatus(ORG, () => {}, { onSubscription: (s) => first.push(s) });
    await expect.poll(() => first).toEqual(["SUBSCRIBED"]);
    realtime.close(`org:${ORG}:documents`);
    await expect.poll(() => first).toEqual(["SUBSCRIBED", "CLOSED"]);
    expect(supabase.getChannels()).toHaveLength(0); // supabase-js dropped it
    // the app subscribes again (a component mounts, or it reacts to CLOSED)
    const second: string[] = [];
    const events: unknown[] = [];
    einvoicing.onDocumentStatus(ORG, (e) => events.push(e), { onSubscription: (s) => second.push(s) });
    await expect.poll(() => second).toEqual(["SUBSCRIBED"]);
    realtime.broadcast(`org:${ORG}:documents`, { ...DOCUMENT_EVENT_EXAMPLE, id: "evt_9" });
    await expect.poll(() => events.length).toBe(1);
    await supabase.realtime.disconnect();
  });
});
