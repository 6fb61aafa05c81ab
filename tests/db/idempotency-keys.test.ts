/**
 * The Idempotency-Key rows (supabase/migrations/…_idempotency.sql) at the database API: the same
 * answers through both transports, exactly one winner among concurrent first calls, and no API role
 * reading or writing the table but through the two service functions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asRole, createTestDatabase, sqlState, type TestDatabase } from "../../devkit/database.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";
import { ForbiddenError } from "../../shared/kernel/errors.ts";
import type { Db } from "../../shared/ports/db/port.ts";
import { createTransports, TRANSPORTS, type Transports } from "../support/transports.ts";

const HASH_A = "a".repeat(64);
const HASH_B = "b".repeat(64);

let db: TestDatabase;
let tenant: Tenant;
let transports: Transports["db"];
let userToken: string;

beforeAll(async () => {
  db = await createTestDatabase();
  tenant = await createTenant(db);
  const both = await createTransports(db.client, { name: "idempotency" });
  transports = both.db;
  userToken = (await both.callerOf(tenant.admin)).accessToken;
});
afterAll(() => db?.close());

describe.each(TRANSPORTS)("through the %s transport", (name) => {
  const service = () => (transports[name] as Db).asService();
  const where = (key: string) => ({ p_org_id: tenant.org.id, p_route: "/einvoicing/deliver", p_key: key });

  it("proceeds, keeps the answer, replays it, and refuses another body", async () => {
    const key = `${name} 'quoted' \\ key`;
    const begun = await service().call("einv_idempotency_begin", { ...where(key), p_request_hash: HASH_A });
    expect(begun).toEqual({ outcome: "proceed", claim_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    if (begun.outcome !== "proceed") return;
    expect(await service().call("einv_idempotency_begin", { ...where(key), p_request_hash: HASH_A })).toEqual(
      { outcome: "conflict", reason: "idempotency_in_flight" },
    );

    const answer = { status: "enviada", nested: { list: [1, "two", null] } };
    expect(
      await service().call("einv_idempotency_finish", {
        ...where(key),
        p_claim_id: begun.claim_id,
        p_status: 200,
        p_response: answer,
      }),
    ).toEqual({ outcome: "stored" });
    expect(await service().call("einv_idempotency_begin", { ...where(key), p_request_hash: HASH_A })).toEqual(
      { outcome: "replay", status: 200, response: answer },
    );
    expect(await service().call("einv_idempotency_begin", { ...where(key), p_request_hash: HASH_B })).toEqual(
      { outcome: "conflict", reason: "idempotency_body_differs" },
    );
  });

  it("releases a key: the next call proceeds; a stale claim is told it lost", async () => {
    const key = `${name}-release`;
    const first = await service().call("einv_idempotency_begin", { ...where(key), p_request_hash: HASH_A });
    if (first.outcome !== "proceed") throw new Error("expected to proceed");
    const release = { ...where(key), p_claim_id: first.claim_id, p_status: null, p_response: null };
    expect(await service().call("einv_idempotency_finish", release)).toEqual({ outcome: "released" });
    expect(await service().call("einv_idempotency_finish", release)).toEqual({ outcome: "lost" });
    const second = await service().call("einv_idempotency_begin", { ...where(key), p_request_hash: HASH_B });
    expect(second.outcome).toBe("proceed");
  });

  it("lets exactly one of many concurrent first calls proceed", async () => {
    const args = { p_org_id: tenant.org.id, p_route: "/r", p_key: `race-${name}`, p_request_hash: HASH_A };
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => service().call("einv_idempotency_begin", args)),
    );
    expect(outcomes.filter((o) => o.outcome === "proceed")).toHaveLength(1);
    expect(outcomes.filter((o) => o.outcome === "conflict")).toHaveLength(7);
  });

  it("refuses a key the header rule refuses, whoever writes it", async () => {
    for (const key of ["", "k".repeat(256), "tab\there", "clé"]) {
      await expect(
        service().call("einv_idempotency_begin", {
          p_org_id: tenant.org.id,
          p_route: "/r",
          p_key: key,
          p_request_hash: HASH_A,
        }),
      ).rejects.toThrow(/23514|check/);
    }
  });
  it("refuses both functions to a signed-in user", async () => {
    const user = (transports[name] as Db).asUser({
      accessToken: userToken,
      claims: tenant.admin.claims,
    });
    await expect(
      user.call("einv_idempotency_begin", { ...where(`${name}-user`), p_request_hash: HASH_A }),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });
});

describe("the table", () => {
  it.each(["anon", "authenticated", "service_role"] as const)("is closed to %s", async (role) => {
    const claims = role === "authenticated" ? tenant.admin.claims : { role };
    expect(await sqlState(asRole(db, role, claims, "select * from einv_private.idempotency_keys"))).toBe(
      "42501",
    );
    expect(
      await sqlState(
        asRole(db, role, claims, "delete from einv_private.idempotency_keys where key = 'race-postgres'"),
      ),
    ).toBe("42501");
  });
});
