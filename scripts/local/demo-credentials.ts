/**
 * Gives the demo companies sealed sandbox credentials, once: adapter-tax and deliver for every
 * company in both environments, and docsgen for the second organization's company (so both PDF
 * paths, built-in and provider-rendered, can be seen locally). The seed is SQL and cannot encrypt,
 * so the local server does this through the service's own database API.
 */
import type { SecretBox } from "../../shared/crypto/secret-box.ts";
import { keyHint } from "../../shared/crypto/secret-box.ts";
import type { SqlClient } from "../../shared/db/sql-client.ts";
import type { Db } from "../../shared/ports/db/port.ts";
import type { ProviderService } from "../../shared/ports/providers/errors.ts";

export const DEMO_SANDBOX_KEY = "sk_sandbox_local_demo";
const DOCSGEN_DEMO_ORG = "22222222-2222-4222-8222-222222222222";

/** A demo credential's url: this local server's sandbox of `service`, at whatever address it ran. */
const LOCAL_SANDBOX =
  /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/sandbox\/(adapter-tax|docsgen|deliver)$/;

/**
 * `sandboxUrl` is where the sandboxes answer, each under its service name. A demo credential saved by
 * a run at another address (another PORT or HOST, same .data/) is saved again at this one, so the
 * demo companies keep reaching the sandbox; a credential someone saved by hand is left alone.
 */
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
    const services: ProviderService[] = ["adapter-tax", "deliver"];
    if (company.org_id === DOCSGEN_DEMO_ORG) services.push("docsgen");
    for (const name of services) {
      for (const environment of ["uat", "prd"] as const) {
        const where = {
          p_org_id: company.org_id,
          p_company_id: company.id,
          p_service: name,
          p_environment: environment,
        };
        const url = `${sandboxUrl}/${name}`;
        const stored = await service.call("einv_credential_get", where);
        if (stored && (stored.url === url || !LOCAL_SANDBOX.test(stored.url ?? ""))) continue;
        const identity = { org_id: company.org_id, company_id: company.id, service: name, environment };
        await service.call("einv_integration_save", {
          ...where,
          p_url: url,
          p_settings: {},
          p_api_key_ciphertext: await secretBox.seal(DEMO_SANDBOX_KEY, identity),
          p_api_key_hint: keyHint(DEMO_SANDBOX_KEY),
          p_key_id: secretBox.keyId,
          p_key_source: "given",
          p_message: stored
            ? `Demo credential moved to this local server's sandbox (it was at ${stored.url}).`
            : "Demo credential for the local sandbox.",
          p_actor_id: null,
        });
        saved++;
      }
    }
  }
  return saved;
}
