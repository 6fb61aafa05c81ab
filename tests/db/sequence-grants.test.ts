/**
 * No API role holds any privilege on a sequence: found in the catalog, not listed here, so a new
 * identity column or serial cannot be forgotten. With the default grants, `anon` could `setval` the
 * events' sequence to its maximum and make every later insert fail, for every organization.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asRole, createTestDatabase, sqlState, type TestDatabase } from "../support/database.ts";
import { createTenant } from "../support/factories.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

const API_ROLES = ["anon", "authenticated", "service_role"] as const;

/** Every sequence in the schemas the migrations create objects in, with what each API role may do. */
const sequencePrivileges = () =>
  db.superuser<{ sequence: string; role: string; privileged: boolean }>(
    `select c.oid::regclass::text as sequence, r.role,
            has_sequence_privilege(r.role, c.oid, 'USAGE')
              or has_sequence_privilege(r.role, c.oid, 'SELECT')
              or has_sequence_privilege(r.role, c.oid, 'UPDATE') as privileged
       from pg_class c
      cross join unnest(array['anon', 'authenticated', 'service_role']) as r (role)
      where c.relkind = 'S' and c.relnamespace in ('public'::regnamespace, 'einv_private'::regnamespace)
      order by 1, 2`,
  );

describe("sequences", () => {
  it("are found in the catalog (the events' identity among them)", async () => {
    const rows = await sequencePrivileges();
    expect(rows.map((r) => r.sequence)).toContain("events_id_seq");
  });

  it("grant nothing to anon, authenticated or service_role", async () => {
    const privileged = (await sequencePrivileges()).filter((r) => r.privileged);
    expect(privileged).toEqual([]);
  });

  it("created later in public grant nothing either: the default privilege is withdrawn", async () => {
    await db.superuser("create sequence public.test_later_seq");
    try {
      for (const role of API_ROLES) {
        const [row] = await db.superuser<{ privileged: boolean }>(
          `select has_sequence_privilege($1, 'public.test_later_seq', 'USAGE')
               or has_sequence_privilege($1, 'public.test_later_seq', 'UPDATE') as privileged`,
          [role],
        );
        expect({ role, privileged: row?.privileged }).toEqual({ role, privileged: false });
      }
    } finally {
      await db.superuser("drop sequence public.test_later_seq");
    }
  });

  it("cannot be moved by anon or a member: setval is refused and events keep being written", async () => {
    const tenant = await createTenant(db);
    const setval = "select setval('public.events_id_seq', 9223372036854775807)";
    expect(await sqlState(asRole(db, "anon", { role: "anon" }, setval))).toBe("42501");
    expect(await sqlState(asRole(db, "authenticated", tenant.admin.claims, setval))).toBe("42501");
    expect(
      await sqlState(
        asRole(db, "authenticated", tenant.admin.claims, "select nextval('public.events_id_seq')"),
      ),
    ).toBe("42501");
    const [event] = await db.superuser<{ id: string }>(
      `insert into public.events (org_id, document_type, document_id, kind) values ($1, 'invoice', gen_random_uuid(), 'test')
       returning id::text`,
      [tenant.org.id],
    );
    expect(Number(event?.id)).toBeLessThan(1_000_000);
  });
});
