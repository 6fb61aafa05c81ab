/**
 * Who may call the database API: every `public.einv_*` function, found in the catalog rather than
 * listed here, so that a function added without its revoke (functions default to EXECUTE for
 * PUBLIC, and Supabase grants the API roles everything) fails this file.
 *
 *   service_role   the service's functions;
 *   authenticated  einv_caller_membership only;
 *   anon           none.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

interface ApiFunction {
  signature: string;
  service_role: boolean;
  authenticated: boolean;
  anon: boolean;
}

const apiFunctions = () =>
  db.superuser<ApiFunction>(
    `select p.oid::regprocedure::text as signature,
            has_function_privilege('service_role', p.oid, 'EXECUTE') as service_role,
            has_function_privilege('authenticated', p.oid, 'EXECUTE') as authenticated,
            has_function_privilege('anon', p.oid, 'EXECUTE') as anon
       from pg_proc p
      where p.pronamespace = 'public'::regnamespace and p.proname like 'einv\\_%'
      order by 1`,
  );

const names = (functions: ApiFunction[]) => functions.map((f) => f.signature.replace(/\(.*$/, ""));

describe("public.einv_* functions", () => {
  it("are found in the catalog", async () => {
    const functions = await apiFunctions();
    expect(names(functions)).toContain("einv_caller_membership");
    expect(names(functions)).toContain("einv_document_claim");
  });

  it("that the service may call, neither authenticated nor anon may", async () => {
    const functions = (await apiFunctions()).filter((f) => f.service_role);
    expect(functions.length).toBeGreaterThan(1);
    for (const f of functions) {
      expect({ signature: f.signature, authenticated: f.authenticated, anon: f.anon }).toEqual({
        signature: f.signature,
        authenticated: false,
        anon: false,
      });
    }
  });

  it("authenticated may call einv_caller_membership and nothing else", async () => {
    const callable = (await apiFunctions()).filter((f) => f.authenticated);
    expect(callable.map((f) => f.signature)).toEqual(["einv_caller_membership(uuid)"]);
  });

  it("anon may call none", async () => {
    expect((await apiFunctions()).filter((f) => f.anon).map((f) => f.signature)).toEqual([]);
  });

  it("each one is callable by exactly one of service_role and authenticated", async () => {
    for (const f of await apiFunctions()) {
      expect([f.signature, Number(f.service_role) + Number(f.authenticated)]).toEqual([f.signature, 1]);
    }
  });
});

describe("einv_private functions (helpers of policies, triggers and the database API)", () => {
  const privateFunctions = () =>
    db.superuser<{ signature: string; callers: string[] }>(
      `select p.oid::regprocedure::text as signature,
              array(select r from unnest(array['anon', 'authenticated', 'service_role']) r
                     where has_function_privilege(r, p.oid, 'EXECUTE')) as callers
         from pg_proc p
        where p.pronamespace = 'einv_private'::regnamespace
        order by 1`,
    );

  it("none but my_org_ids can be called by an API role: the definer helpers read across organizations", async () => {
    const functions = await privateFunctions();
    expect(functions.map((f) => f.signature)).toContain("einv_private.invoice_payload(uuid,jsonb)");
    const callable = functions.filter((f) => f.callers.length > 0);
    expect(callable).toEqual([
      { signature: "einv_private.my_org_ids(text[])", callers: ["authenticated", "service_role"] },
    ]);
  });
});
