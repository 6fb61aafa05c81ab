/**
 * The typed client's `onDocumentStatus` (client/realtime.ts) over supabase-js's channel API. Realtime
 * itself cannot run here: the database side (what is broadcast, who may join) is tested on
 * PostgreSQL (tests/db/outbox.test.ts, tests/db/realtime.test.ts); here, that the client asks the
 * real supabase-js for the right channel — the org's topic, private, the broadcast event the
 * database sends — after handing the socket the user's token, hands the handler each event's
 * payload, and leaves the channel when stopped.
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
