/**
 * The ciphertext column's bound follows what it holds: a provider key's sealed form (at most 1,024
 * characters) or, in DIAN mode, a certificate's key and leaf and the PIN (at most 65,536). The
 * database enforces it whoever writes, and a row cannot become DIAN mode's to get the larger bound
 * without its settings saying so.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTenant } from "../../devkit/factories.ts";

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

async function store(settings: Record<string, unknown>, length: number): Promise<string> {
  const tenant = await createTenant(db);
  try {
    await db.superuser(
      `insert into einv_private.credentials (org_id, company_id, service, environment, url, settings,
         api_key_ciphertext, api_key_hint)
       values ($1, $2, 'adapter-tax', 'uat', 'https://vpfe-hab.dian.gov.co/', $3::text::jsonb, $4, '')`,
      [tenant.org.id, tenant.company.id, JSON.stringify(settings), `v1:${"a".repeat(length - 3)}`],
    );
    return "stored";
  } catch (error) {
    return (error as { constraint_name?: string }).constraint_name ?? String(error);
  }
}

describe("the sealed column's bound", () => {
  it("is 1,024 characters for a provider key", async () => {
    expect(await store({}, 1024)).toBe("stored");
    expect(await store({}, 1025)).toBe("credentials_ciphertext_length");
    expect(await store({ provider: "other" }, 1025)).toBe("credentials_ciphertext_length");
  });

  it("is 65,536 characters in DIAN mode", async () => {
    expect(await store({ provider: "dian", software_id: "s" }, 65_536)).toBe("stored");
    expect(await store({ provider: "dian", software_id: "s" }, 65_537)).toBe("credentials_ciphertext_length");
  });
});
