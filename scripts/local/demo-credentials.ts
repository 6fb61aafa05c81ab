/**
 * Gives every demo company a sealed sandbox credential for both environments, once. The seed is SQL
 * and cannot encrypt, so the local server does this through the service's own database API.
 */
import type { SecretBox } from "../../shared/crypto/secret-box.ts";
import { keyHint } from "../../shared/crypto/secret-box.ts";
import type { Db } from "../../shared/db/port.ts";
import type { SqlClient } from "../../shared/db/sql-client.ts";

export const DEMO_SANDBOX_KEY = "sk_sandbox_local_demo";

export async function ensureDemoCredentials(
  client: SqlClient,
  db: Db,
  secretBox: SecretBox,
  sandboxUrl: string,
): Promise<number> {
  const companies = await client.transaction((s) =>
    s.query<{ id: string; org_id: string }>("select id, org_id from public.companies order by id"),
  );
  const service = db.asService();
  let saved = 0;
  for (const company of companies) {
    for (const environment of ["uat", "prd"] as const) {
      const identity = {
        org_id: company.org_id,
        company_id: company.id,
        service: "adapter-tax",
        environment,
      };
      const existing = await service.call("einv_credential_get", {
        p_org_id: company.org_id,
        p_company_id: company.id,
        p_service: "adapter-tax",
        p_environment: environment,
      });
      if (existing) continue;
      await service.call("einv_credential_save", {
        p_org_id: company.org_id,
        p_company_id: company.id,
        p_service: "adapter-tax",
        p_environment: environment,
        p_url: sandboxUrl,
        p_settings: {},
        p_api_key_ciphertext: await secretBox.seal(DEMO_SANDBOX_KEY, identity),
        p_api_key_hint: keyHint(DEMO_SANDBOX_KEY),
        p_verified_at: null,
        p_actor_id: null,
      });
      saved++;
    }
  }
  return saved;
}
