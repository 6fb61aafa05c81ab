/**
 * `Idempotency-Key` (DESIGN §4), built once for every POST: `operation()` (./route.ts) reads the
 * header with the body, and once the caller is known to be a member with the route's role (so
 * nobody can probe or fill another organization's keys) hands the handler to `idempotent()`.
 *
 * A key is per organization and route (the route as the app matched it). The first final answer
 * for it is kept 24 hours with an HMAC-SHA-256 (server secret) of the request body's canonical JSON (keys sorted, so
 * spacing and key order do not matter); a retry with the same body gets that answer again, with
 * `Idempotent-Replayed: true`, and the handler does not run. The same key with another body, or
 * while its first call is still running, is 409 `idempotency_conflict`. The rows and their lease
 * are supabase/migrations/…_idempotency.sql.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { hmacHex } from "../crypto/digest.ts";
import { reasonSentence } from "../db/reasons.ts";
import { type ApiError, BusyError, toApiError } from "../kernel/errors.ts";
import type { DbScope } from "../ports/db/port.ts";
import type { AppEnv } from "./context.ts";
import { fail } from "./errors.ts";

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
/** On a replayed answer only. */
export const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";

/** 1–255 printable ASCII characters (the database checks the same). */
const KEY_SHAPE = /^[\x20-\x7E]{1,255}$/;

/** The request's key, or undefined when it sends none; a malformed one is a 400 naming the header. */
export function idempotencyKeyOf(c: Context<AppEnv>): string | undefined {
  const key = c.req.header(IDEMPOTENCY_KEY_HEADER);
  if (key === undefined) return undefined;
  if (!KEY_SHAPE.test(key)) {
    fail("validation_failed", `The ${IDEMPOTENCY_KEY_HEADER} header is not valid.`, {
      details: [{ field: IDEMPOTENCY_KEY_HEADER, message: "must be 1 to 255 printable ASCII characters" }],
    });
  }
  return key;
}

/**
 * Whether an answer is final for its body, and so kept and replayed:
 * - 2xx: what the call did;
 * - 4xx from the handler (not found, the document's state, a business rule, a rejected credential):
 *   the answer to that body, decided before anything changed or recording what did;
 * but not 429 (the caller is told to come back after `Retry-After`), nor a 409 idempotency_conflict
 * (about another call, not this body), nor any 5xx — a crash (500), the database (503) or a provider
 * that failed or did not answer (502/504) — after which a retry must be able to run again: those
 * release the key.
 */
export function isFinalAnswer(status: number, code?: ApiError["code"]): boolean {
  if (status >= 200 && status < 300) return true;
  return status >= 400 && status < 500 && status !== 429 && code !== "idempotency_conflict";
}

export interface IdempotencyScope {
  /** The service's scope: the key's row is written whoever the caller is, after the membership check. */
  db: DbScope;
  orgId: string;
  route: string;
  key: string;
}

/**
 * Runs `handle` at most once per key and body, and answers with its result (HTTP 200), or replays
 * the kept answer, or refuses with 409. A result `isFinal` says is not (default: every one is)
 * releases the key, as a 5xx does. What `handle` throws is thrown on, after the key is kept (a
 * final 4xx) or released (anything else). If the answer cannot be kept, it is still given and the
 * failure logged: the key then stays taken until its lease ends, and a retry after that runs again.
 */
export async function idempotent(
  c: Context<AppEnv>,
  scope: IdempotencyScope,
  handle: () => Promise<unknown>,
  options: { sealed?: boolean; isFinal?: (result: unknown) => boolean } = {},
): Promise<Response> {
  const kept = keptAnswers(c, scope, options.sealed === true);
  const where = { p_org_id: scope.orgId, p_route: scope.route, p_key: scope.key };
  // Keyed with a server secret: a body may hold a provider key (/integrations/save), and a plain
  // hash of it stored beside the answer would let whoever reads the table test guesses offline.
  const requestHash = await hmacHex(
    `idempotency:${c.get("deps").config.credentialsKey}`,
    canonicalJson(c.get("body")),
  );
  const begun = await scope.db.call("einv_idempotency_begin", { ...where, p_request_hash: requestHash });
  if (begun.outcome === "replay")
    return replay(c, begun.status, await kept.open(begun.status, begun.response));
  if (begun.outcome === "conflict") {
    fail("idempotency_conflict", reasonSentence(begun.reason, null) ?? begun.reason);
  }

  const finish = async (status: number | null, response: unknown) => {
    try {
      const { outcome } = await scope.db.call("einv_idempotency_finish", {
        ...where,
        p_claim_id: begun.claim_id,
        p_status: status,
        p_response: response,
      });
      if (outcome === "lost")
        c.get("log").warn("idempotency key was taken over before its answer", { status });
    } catch (error) {
      c.get("log").error("could not keep or release an idempotency key", { status, error });
    }
  };

  let result: unknown;
  try {
    result = await handle();
  } catch (error) {
    const answer = toApiError(error);
    // a 409 that passes by itself (a transmission holds the document) is no final answer either
    if (isFinalAnswer(answer.status, answer.code) && !(error instanceof BusyError)) {
      // Kept without the request id: a replay carries its own (the one x-request-id names).
      const { code, message, details, providerMessage } = answer;
      await finish(answer.status, {
        error: {
          code,
          message,
          ...(providerMessage ? { provider_message: providerMessage } : {}),
          ...(details ? { details } : {}),
        },
      });
    } else {
      await finish(null, null);
    }
    throw error;
  }
  // Route answers hold no secret (no provider key, technical key or PIN is ever answered), so
  // keeping one in the database, readable by the service only, adds no exposure; the one that does
  // (a webhook's signing secret, answered once) is kept sealed like every stored secret. An answer
  // the route says passes by itself (work under way elsewhere) releases the key instead.
  if (options.isFinal && !options.isFinal(result)) await finish(null, null);
  else await finish(200, await kept.seal(result));
  return c.json(result as object, 200);
}

/**
 * How a 2xx answer is kept: as it is, or sealed (AES-256-GCM under the credentials key, bound to the
 * org, the route and the key), and opened again for a replay.
 */
function keptAnswers(c: Context<AppEnv>, scope: IdempotencyScope, sealed: boolean) {
  const box = c.get("deps").secretBox;
  const identity = {
    org_id: scope.orgId,
    company_id: scope.key,
    service: "idempotent-answer",
    environment: scope.route,
  };
  return {
    seal: async (answer: unknown): Promise<unknown> =>
      sealed ? { sealed: await box.seal(JSON.stringify(answer), identity) } : answer,
    open: async (status: number, stored: unknown): Promise<unknown> =>
      sealed && status >= 200 && status < 300
        ? JSON.parse(await box.open((stored as { sealed: string }).sealed, identity))
        : stored,
  };
}

function replay(c: Context<AppEnv>, status: number, response: unknown): Response {
  c.header(IDEMPOTENT_REPLAYED_HEADER, "true");
  c.get("log").info("idempotent answer replayed", { status });
  const body =
    status >= 400 && isErrorBody(response)
      ? { error: { ...response.error, request_id: c.get("requestId") } }
      : response;
  return c.json(body as object, status as ContentfulStatusCode);
}

function isErrorBody(value: unknown): value is { error: Record<string, unknown> } {
  const error = (value as { error?: unknown } | null)?.error;
  return typeof error === "object" && error !== null;
}

/** A value's marker in `canonicalJson`'s work stack: text to emit as it is. */
class Text {
  constructor(readonly text: string) {}
}

/**
 * The JSON text of a parsed JSON value with every object's keys sorted, so two bodies that differ
 * only in spacing or key order hash the same. Iterative: a body nested as deep as the body limit
 * allows cannot exhaust the call stack.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const work: unknown[] = [value];
  while (work.length > 0) {
    const item = work.pop();
    if (item instanceof Text) {
      out.push(item.text);
    } else if (Array.isArray(item)) {
      work.push(new Text("]"));
      for (let i = item.length - 1; i >= 0; i--) {
        work.push(item[i] === undefined ? null : item[i]);
        if (i > 0) work.push(new Text(","));
      }
      work.push(new Text("["));
    } else if (item !== null && typeof item === "object") {
      const entries = Object.entries(item)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      work.push(new Text("}"));
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, v] = entries[i] as [string, unknown];
        work.push(v);
        work.push(new Text(`${i > 0 ? "," : ""}${JSON.stringify(key)}:`));
      }
      work.push(new Text("{"));
    } else {
      out.push(JSON.stringify(item) ?? "null");
    }
  }
  return out.join("");
}
