/**
 * What the database says was announced: the outbox's events of a document, the Realtime messages of
 * an organization's channel, and Realtime's own authorization check of a client on a channel,
 * reproduced on the compat `realtime` schema (supabase/compat/bootstrap.sql).
 */
import type { TestDatabase } from "../../devkit/database.ts";

export interface OutboxEvent {
  /** The outbox's own row id (its order of writing), never shown to anyone. */
  id: string;
  /** The event's id as receivers see it (`evt_…`, the webhook-id), and its place among its document's. */
  event_id: string;
  sequence: number;
  kind: string;
  document_id: string;
  status: string;
  code: string | null;
}

/** A document's events (or a company's credential events), in the order they were written. */
export function eventsOf(db: TestDatabase, documentId: string): Promise<OutboxEvent[]> {
  return db.superuser<OutboxEvent>(
    `select o.id::text as id, einv_private.event_payload(o) ->> 'id' as event_id,
            (einv_private.event_payload(o) -> 'sequence')::int as sequence,
            o.kind, o.document_id::text as document_id, o.status, o.code
       from einv_private.outbox o where o.document_id = $1 order by o.id`,
    [documentId],
  );
}

/** `[status, code]` of each of a document's events, in order: what most assertions compare. */
export async function changesOf(db: TestDatabase, documentId: string): Promise<[string, string | null][]> {
  return (await eventsOf(db, documentId)).map((e) => [e.status, e.code]);
}

export interface Broadcast {
  topic: string;
  event: string;
  private: boolean;
  extension: string;
  payload: Record<string, unknown>;
}

/** The messages Broadcast from Database queued for `topic`, oldest first. */
export function broadcastsOn(db: TestDatabase, topic: string): Promise<Broadcast[]> {
  return db.superuser<Broadcast>(
    `select topic, event, private, extension, payload from realtime.messages
      where topic = $1 order by inserted_at, (payload ->> 'id')`,
    [topic],
  );
}

export const documentsTopic = (orgId: string) => `org:${orgId}:documents`;

/** Who joins: a member's claims (role `authenticated`), or anon's. */
export type Joiner = { role: "authenticated"; claims: Record<string, unknown> } | { role: "anon" };

/**
 * Realtime's check of a client joining a private channel (supabase/realtime
 * lib/realtime/tenants/authorization.ex at 00bc6f2): as the service, insert a probe message of the
 * extension for the topic; as the client — `role`, `realtime.topic`, `request.jwt.claims` set for the
 * transaction — read it back; roll back. It may receive when it reads the probe. Sending is the
 * client's own insert of a message for the topic, refused (42501) or not.
 */
export async function realtimeAccess(
  db: TestDatabase,
  joiner: Joiner,
  topic: string,
  extension: "broadcast" | "presence" = "broadcast",
): Promise<{ receive: boolean; send: boolean }> {
  const claims = joiner.role === "anon" ? { role: "anon" } : { ...joiner.claims, role: "authenticated" };
  const asClient = `select set_config('role', $1, true), set_config('realtime.topic', $2, true),
                           set_config('request.jwt.claims', $3, true)`;
  const receive = await rolledBack(db, async (session) => {
    const [probe] = await session.query<{ id: string }>(
      "insert into realtime.messages (topic, extension) values ($1, $2) returning id::text",
      [topic, extension],
    );
    await session.query(asClient, [joiner.role, topic, JSON.stringify(claims)]);
    const seen = await session.query("select 1 from realtime.messages where topic = $1 and id = $2", [
      topic,
      probe?.id ?? "",
    ]);
    return seen.length === 1;
  });
  const send = await rolledBack(db, async (session) => {
    await session.query(asClient, [joiner.role, topic, JSON.stringify(claims)]);
    try {
      await session.query("insert into realtime.messages (topic, extension) values ($1, $2)", [
        topic,
        extension,
      ]);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === "42501") return false;
      throw error;
    }
  });
  return { receive, send };
}

type Session = Parameters<Parameters<TestDatabase["client"]["transaction"]>[0]>[0];

/** Runs `work` in a transaction that is always rolled back, and answers what it answered. */
async function rolledBack<T>(db: TestDatabase, work: (session: Session) => Promise<T>): Promise<T> {
  const rollback = new Error("rolled back on purpose");
  let result: T | undefined;
  try {
    await db.client.transaction(async (session) => {
      result = await work(session);
      throw rollback;
    });
  } catch (error) {
    if (error !== rollback) throw error;
  }
  return result as T;
}
