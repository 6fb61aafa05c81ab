import {
  BusinessRuleError,
  BusyError,
  DatabaseError,
  type DomainError,
  ForbiddenError,
  InvalidStateError,
  NotFoundError,
} from "../errors.ts";
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
    }
  }
  if (error.code === "42501") return new ForbiddenError("permission denied", { cause: error });
  return new DatabaseError(`database error ${error.code ?? "unknown"}: ${raw}`, { cause: error });
}
