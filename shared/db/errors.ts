import {
  BusinessRuleError,
  BusyError,
  DatabaseError,
  DatabaseUnavailableError,
  type DomainError,
  FieldError,
  ForbiddenError,
  InvalidStateError,
  NotFoundError,
} from "../kernel/errors.ts";
import { reasonSentence } from "./reasons.ts";

/**
 * The part of a database error both transports expose: PostgREST answers `{ code, message, hint }`,
 * and the direct drivers throw errors with the same fields.
 */
export interface SqlErrorLike {
  code?: string;
  message?: string;
  hint?: string | null;
  /** The document kind of a reason code: `detail` from the drivers, `details` from PostgREST. */
  detail?: string | null;
  details?: string | null;
}

/**
 * SQLSTATEs that say "not now" rather than "never": the same call may succeed when retried. Exact
 * codes, then classes: 57014 statement timeout (PostgREST answers it 500; Supabase's API roles time
 * out after 8 s), 40001 serialization failure, 40P01 deadlock, 55P03 lock wait timeout, 57P01-57P05
 * shutdowns and `idle_session_timeout`; class 08 connection exceptions and class 53 insufficient
 * resources (53300 too many connections) but not 53400, a configuration limit. PGRST000-PGRST003 are
 * PostgREST's own: no connection, connection lost, schema cache not loaded, pool acquisition timeout.
 */
const TRANSIENT_STATES = new Set([
  "57014",
  "40001",
  "40P01",
  "55P03",
  "57P01",
  "57P02",
  "57P03",
  "57P04",
  "57P05",
]);
const TRANSIENT_POSTGREST = new Set(["PGRST000", "PGRST001", "PGRST002", "PGRST003"]);

function isTransient(code: string | undefined): boolean {
  if (!code) return false;
  if (TRANSIENT_STATES.has(code) || TRANSIENT_POSTGREST.has(code)) return true;
  return code.length === 5 && (code.startsWith("08") || (code.startsWith("53") && code !== "53400"));
}

/** Reason codes of a 409 that passes by itself: the document is being transmitted right now. */
const TRANSIENT = new Set(["busy", "invoice_in_progress"]);

/**
 * Database API functions raise `P0001` with the domain error code in `hint`, a reason code as the
 * message and the document kind in the detail (./reasons.ts makes the sentence); integrity triggers
 * raise sentences meant for the web app, passed on as they are. Anything else is unexpected and is
 * not shown.
 */
export function toDomainError(error: SqlErrorLike): DomainError {
  const raw = error.message ?? "database error";
  const message = reasonSentence(raw, error.detail ?? error.details) ?? raw;
  if (error.code === "P0001") {
    switch (error.hint) {
      case "not_found":
        return new NotFoundError(message);
      case "invalid_state":
        return TRANSIENT.has(raw) ? new BusyError(message) : new InvalidStateError(message);
      case "business_rule":
        return new BusinessRuleError(message);
      case "forbidden":
        return new ForbiddenError(message);
      // an input the amounts module refuses, the field in the detail (`lines.0.taxes.1.percent`)
      case "validation_failed":
        return new FieldError(error.detail ?? error.details ?? "(body)", raw);
    }
  }
  if (error.code === "42501") return new ForbiddenError("permission denied", { cause: error });
  if (isTransient(error.code)) {
    return new DatabaseUnavailableError(`database busy ${error.code}: ${raw}`, { cause: error });
  }
  return new DatabaseError(`database error ${error.code ?? "unknown"}: ${raw}`, { cause: error });
}
