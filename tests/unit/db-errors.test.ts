/**
 * shared/db/errors.ts: what a database error becomes. A "not now" error (a timeout, a deadlock, a
 * shutdown, PostgREST without a connection) is a retryable 503 `database_unavailable` with
 * `Retry-After`; anything else unexpected stays `service_unavailable`, and neither shows SQL.
 */
import { describe, expect, it } from "vitest";
import { toDomainError } from "../../shared/db/errors.ts";
import { toApiError } from "../../shared/kernel/errors.ts";

describe("a database error", () => {
  it.each([
    "57014",
    "40001",
    "40P01",
    "55P03",
    "57P01",
    "57P03",
    "08006",
    "53300",
    "PGRST000",
    "PGRST001",
    "PGRST002",
    "PGRST003",
  ])("%s answers 503 database_unavailable with Retry-After", (code) => {
    const answer = toApiError(
      toDomainError({ code, message: "canceling statement due to statement timeout" }),
    );
    expect([answer.status, answer.code, answer.headers]).toEqual([
      503,
      "database_unavailable",
      { "Retry-After": "1" },
    ]);
    expect(answer.message).toBe("The service is temporarily unavailable. Try again shortly.");
  });

  it.each(["23514", "53400", "57000", "42703", "XX000", undefined])(
    "%s stays 503 service_unavailable, with no Retry-After",
    (code) => {
      const answer = toApiError(
        toDomainError({ ...(code ? { code } : {}), message: "column x does not exist" }),
      );
      expect([answer.status, answer.code, answer.headers]).toEqual([503, "service_unavailable", undefined]);
      expect(answer.message).not.toMatch(/column/);
    },
  );
});
