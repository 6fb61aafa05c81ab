/**
 * DIAN's NIT check digit (DV), computed once in SQL (`einv_private.nit_check_digit`) and once in
 * TypeScript (shared/co/check-digit.ts): both give DIAN's own examples, and agree on every
 * NIT drawn; a company whose DV is wrong is never stored, whoever writes it.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asRole, createTestDatabase, sqlState, type TestDatabase } from "../../devkit/database.ts";
import { createTenant, randomDigits, type Tenant } from "../../devkit/factories.ts";
import { nitCheckDigit } from "../../shared/co/check-digit.ts";

let db: TestDatabase;
let tenant: Tenant;
beforeAll(async () => {
  db = await createTestDatabase();
  tenant = await createTenant(db);
});
afterAll(() => db?.close());

const inSql = async (nits: string[]): Promise<(string | null)[]> => {
  const rows = await db.superuser<{ dv: string | null }>(
    "select einv_private.nit_check_digit(n) as dv from unnest($1::text[]) with ordinality as t (n, i) order by i",
    [`{${nits.map((n) => JSON.stringify(n)).join(",")}}`],
  );
  return rows.map((r) => r.dv);
};

describe("the NIT check digit", () => {
  // DIAN's 800197268 → 4 and 1018419008 → 5, as in its own signed ApplicationResponse (dian/brief.md §4)
  const EXAMPLES: [string, string][] = [
    ["800197268", "4"],
    ["1018419008", "5"],
    ["900123456", "8"],
    ["860000001", "8"],
  ];

  it("gives DIAN's examples in TypeScript and in SQL", async () => {
    expect(EXAMPLES.map(([nit]) => nitCheckDigit(nit))).toEqual(EXAMPLES.map(([, dv]) => dv));
    expect(await inSql(EXAMPLES.map(([nit]) => nit))).toEqual(EXAMPLES.map(([, dv]) => dv));
  });

  it("is the same in TypeScript and SQL for any NIT of 1 to 15 digits, and null for anything else", async () => {
    const nits = fc.sample(fc.stringMatching(/^[0-9]{1,15}$/), { numRuns: 500, seed: 25 });
    const others = ["", "12a45", "1234567890123456", "-123", " 123", "٣٤٥"];
    expect(await inSql([...nits, ...others])).toEqual([...nits, ...others].map(nitCheckDigit));
    expect(others.map(nitCheckDigit)).toEqual(others.map(() => null));
  });
});

describe("a company's check digit", () => {
  const insert = (nit: string, dv: string) =>
    asRole(
      db,
      "authenticated",
      tenant.admin.claims,
      `insert into public.companies (org_id, nit, check_digit, legal_name, address, city_code, city_name,
         department_code, department_name)
       values ($1, $2, $3, 'Nueva S.A.S.', 'Calle 1', '11001', 'Bogotá', '11', 'Bogotá') returning id`,
      [tenant.org.id, nit, dv],
    );

  it("is refused when wrong, through PostgREST as anywhere, with a message naming the right digit", async () => {
    await expect(insert("800197268", "7")).rejects.toMatchObject({
      code: "23514",
      message: "check_digit 7 is wrong for NIT 800197268: its DIAN check digit is 4",
    });
    expect(await insert("800197268", "4")).toHaveLength(1);
  });

  it("is checked again when the NIT changes", async () => {
    const nit = randomDigits(9);
    const dv = nitCheckDigit(nit) as string;
    const [made] = await insert(nit, dv);
    // a NIT whose own digit is not this one's (DIAN's examples: 800197268-4, 1018419008-5)
    const other = dv === "4" ? "1018419008" : "800197268";
    expect(
      await sqlState(
        asRole(
          db,
          "authenticated",
          tenant.admin.claims,
          "update public.companies set nit = $1 where id = $2",
          [other, String(made?.id)],
        ),
      ),
    ).toBe("23514");
  });
});
