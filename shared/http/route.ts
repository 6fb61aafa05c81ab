/**
 * `operation()` turns a zod schema for the request, one for the response, the roles allowed, and a
 * handler into a Hono handler: it validates the body, checks that the caller is a member of
 * `org_id` with one of the roles, hands the handler a ready context (database scopes, providers,
 * documents store, actor, logger), and answers with the handler's result as JSON. Every route goes
 * through it, so validation and authorisation cannot be forgotten and no route wires adapters; and
 * so does the `Idempotency-Key` of every POST (./idempotency.ts), taken after the membership check.
 */
import type { Handler } from "hono";
import { z } from "zod";
import { type ErrorCode, invalidBodyMessage } from "../kernel/errors.ts";
import type { Logger } from "../kernel/log.ts";
import type { Clock } from "../ports/clock.ts";
import type { Caller, DbScope } from "../ports/db/port.ts";
import type { ProviderDirectory } from "../ports/providers/directory.ts";
import type { DocumentStore } from "../ports/storage.ts";
import { announceChanges } from "./announce.ts";
import { authorizationGate, type Role } from "./authorize.ts";
import type { AppDeps, AppEnv } from "./context.ts";
import { fail } from "./errors.ts";
import { idempotencyKeyOf, idempotent } from "./idempotency.ts";
import { toDetails, validate } from "./validation.ts";

export type { Role } from "./authorize.ts";
export const DOCUMENT_ROLES: readonly Role[] = ["admin", "operador"];
export const ADMIN_ONLY: readonly Role[] = ["admin"];

/** A UUID in any letter case, handed on in lower case (the form the database prints and paths use). */
export const uuid = z.guid({ error: "must be a UUID" }).transform((id) => id.toLowerCase());

/**
 * Every body carries the organization the call acts for. Strict: a field the route does not know is
 * refused (400, naming it), and every route's request extends this, so none forgets it.
 */
export const orgScoped = z.strictObject({
  org_id: uuid.meta({
    description: "The organization the call acts for; the caller must be a member of it.",
  }),
});

/** What a handler receives besides the valid input: everything a core operation takes. */
export interface OperationContext {
  deps: AppDeps;
  caller: Caller;
  /** The caller's user id: who did it, for events. */
  actorId: string;
  userDb: DbScope;
  serviceDb: DbScope;
  /** The org's provider clients for this request (credentials read through `serviceDb`). */
  providers: ProviderDirectory;
  documents: DocumentStore;
  requestId: string;
  log: Logger;
  /** The request's Idempotency-Key, when it has one: work that leaves the service can reuse it. */
  idempotencyKey?: string;
  /**
   * What a database call answered of the org's webhook deliveries waiting to be sent (`undefined`:
   * it did not say); a route that `announces: "when_waiting"` drains after the answer only if one
   * of them said so or did not say.
   */
  webhooksWaiting(waiting: boolean | undefined): void;
}

/**
 * What a route declares for the contract (docs/openapi.json, the typed client): its request and
 * 200 bodies, who may call it, and the error codes it answers besides the pipeline's own
 * (`PIPELINE_ERRORS`, which every route can answer).
 */
export interface OperationContract {
  /** One line for the API reference. */
  summary: string;
  /**
   * What it does and what to do with the answer, for the reference: every route in
   * docs/openapi.json must have one (its build fails otherwise).
   */
  description?: string;
  input: z.ZodType;
  output: z.ZodType;
  roles: readonly Role[];
  errors: readonly ErrorCode[];
  /** A realistic request and its 200 answer, for the reference (each must pass its schema). */
  example?: { request: unknown; response: unknown; summary?: string };
  /** More named pairs, for a route whose body has modes (the reference shows them beside `example`). */
  moreExamples?: Readonly<Record<string, { summary: string; request: unknown; response: unknown }>>;
}

/** A route's handler, carrying its contract. */
export type Operation = Handler<AppEnv> & { readonly contract: OperationContract };

/** The errors the pipeline and `operation()` can answer on any route, before or around its handler. */
export const PIPELINE_ERRORS: readonly ErrorCode[] = [
  "invalid_json",
  "validation_failed",
  "unauthenticated",
  "forbidden",
  "idempotency_conflict",
  "payload_too_large",
  "unsupported_media_type",
  "internal_error",
  "service_unavailable",
  "database_unavailable",
];

/** What a route that calls a provider for one document can answer when the provider fails. */
export const PROVIDER_ERRORS: readonly ErrorCode[] = [
  "credential_rejected",
  "rate_limited",
  "provider_error",
  "provider_timeout",
];

export function operation<S extends z.ZodType<{ org_id: string }>, R extends z.ZodType>(spec: {
  summary: string;
  /** What it does and what to do with the answer (the reference's description). */
  description?: string;
  input: S;
  /** What the route answers with HTTP 200 (declared beside the request, for the contract). */
  output: R;
  roles: readonly Role[];
  /** The error codes the handler can answer, besides `PIPELINE_ERRORS`. */
  errors: readonly ErrorCode[];
  /**
   * A realistic request and its 200 answer, shown by the reference: every route in docs/openapi.json
   * must have one (its build fails otherwise, and when an example does not pass its schema).
   */
  example?: { request: z.input<S>; response: z.input<R>; summary?: string };
  /** More named request and answer pairs, e.g. one per mode of the body (checked the same way). */
  moreExamples?: Readonly<Record<string, { summary: string; request: z.input<S>; response: z.input<R> }>>;
  /**
   * The membership check rides on the handler's first call when the handler makes it with
   * `callAuthorized()`, naming an `_authorized` function (./authorize.ts): one round trip less. Only
   * for handlers that reach the database, the store and the providers through their context alone.
   */
  firstCallAuthorizes?: boolean;
  /**
   * The handler may change a status, which queues events for the org's webhooks: they are sent right
   * after the answer, in the background (./announce.ts). `"when_waiting"`: only when one of its
   * database calls said a delivery of the org waits (queued by the call, or due already), or said
   * nothing of it (`ctx.webhooksWaiting`), and after an error.
   */
  announces?: boolean | "when_waiting";
  /** The answer holds a secret: the answer kept for an Idempotency-Key is sealed at rest. */
  keepsSecrets?: boolean;
  /**
   * Whether a 200 answer is final for its Idempotency-Key (kept and replayed); default every one. An
   * answer about work still under way elsewhere (a delivery `pendiente`) passes by itself, like a
   * busy 409: not kept, so a retry asks again rather than replay what has since changed.
   */
  isFinal?: (result: z.input<R>) => boolean;
  handle: (input: z.output<S>, ctx: OperationContext) => Promise<z.input<R>>;
}): Operation {
  const { handle: _, firstCallAuthorizes: __, announces, keepsSecrets, isFinal, ...contract } = spec;
  const handler: Handler<AppEnv> = async (c) => {
    const body = c.get("body");
    const parsed = validate(spec.input, body);
    if (!parsed.success) {
      const details = toDetails(parsed.error, body, spec.input);
      fail("validation_failed", invalidBodyMessage(details), { details });
    }
    const input = parsed.data;
    const idempotencyKey = idempotencyKeyOf(c);
    const deps = c.get("deps");
    const caller = c.get("caller");
    const gate = authorizationGate({
      db: deps.db,
      caller,
      documents: deps.documents,
      orgId: input.org_id,
      roles: spec.roles,
    });
    // A route whose first call carries the check runs its handler behind the gate; the others,
    // and any request with an Idempotency-Key (its key is taken after the check), check first.
    if (!spec.firstCallAuthorizes || idempotencyKey !== undefined) await gate.authorize();
    // whether a delivery waits for the drain after the answer: always, unless the route asks its calls
    let deliveriesWait = announces === true;
    const context: OperationContext = {
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      // the database and the store behind the gate, wherever the handler reaches them from
      deps: { ...deps, db: gate.db, documents: gate.documents },
      caller,
      actorId: caller.claims.sub,
      userDb: gate.userDb,
      serviceDb: gate.serviceDb,
      providers: await deps.providers(gate.serviceDb),
      documents: gate.documents,
      requestId: c.get("requestId"),
      log: c.get("log"),
      webhooksWaiting: (waiting) => {
        if (waiting !== false) deliveriesWait = true;
      },
    };
    // Nothing is answered to a caller who was not checked: not a result, not an error. Whatever
    // the answer, a checked caller's changes are announced (a failed call may have changed some).
    const announce = (failed: boolean) => {
      if (announces && (deliveriesWait || failed)) announceChanges(deps, input.org_id, context.log);
    };
    const handle = async () => {
      try {
        const result = await spec.handle(input, context);
        await gate.authorize();
        announce(false);
        return result;
      } catch (error) {
        await gate.authorize();
        announce(true);
        throw error;
      }
    };
    if (idempotencyKey === undefined) return c.json((await handle()) as object, 200);
    // After the membership check, so a stranger can neither probe nor fill the org's keys.
    // the route as Supabase hands it to the function, wherever a server mounts it
    const route = c.req.routePath.slice(c.get("mountedAt").length);
    const scope = { db: gate.serviceDb, orgId: input.org_id, route, key: idempotencyKey };
    return idempotent(c, scope, handle, {
      sealed: keepsSecrets === true,
      ...(isFinal ? { isFinal: isFinal as (result: unknown) => boolean } : {}),
    });
  };
  return Object.assign(handler, { contract });
}

/** The context of an operation that transmits documents: the request's, with the configured pace. */
export function transmitting(
  ctx: OperationContext,
): OperationContext & { concurrency: number; providerTimeoutMs: number; clock: Clock } {
  return {
    ...ctx,
    concurrency: ctx.deps.config.providers.transmitConcurrency,
    providerTimeoutMs: ctx.deps.config.providers.timeoutMs,
    clock: ctx.deps.clock,
  };
}
