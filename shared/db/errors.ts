import {
  BusinessRuleError,
  DatabaseError,
  type DomainError,
  ForbiddenError,
  InvalidStateError,
  NotFoundError,
} from "../errors.ts";

/**
 * The part of a database error both transports expose: PostgREST answers `{ code, message, hint }`,
 * and the direct drivers throw errors with the same fields.
 */
export interface SqlErrorLike {
  code?: string;
  message?: string;
  hint?: string | null;
}

/**
 * Database API functions raise `P0001` with the domain error code in `hint` and a message meant
 * for the caller. Anything else is unexpected and is not shown.
 */
export function toDomainError(error: SqlErrorLike): DomainError {
  const message = error.message ?? "database error";
  if (error.code === "P0001") {
    switch (error.hint) {
      case "not_found":
        return new NotFoundError(message);
      case "invalid_state":
        return new InvalidStateError(message);
      case "business_rule":
        return new BusinessRuleError(message);
      case "forbidden":
        return new ForbiddenError(message);
    }
  }
  if (error.code === "42501") return new ForbiddenError("permission denied", { cause: error });
  return new DatabaseError(`database error ${error.code ?? "unknown"}: ${message}`, { cause: error });
}
