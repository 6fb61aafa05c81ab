/**
 * `npm run credentials:reseal`: re-seals every stored provider API key and webhook signing secret
 * under EINV_CREDENTIALS_KEY, opening each with that key or one of EINV_CREDENTIALS_PREVIOUS_KEYS. Run it with the function's
 * environment (the same database variables and keys) after rotating the key; it is idempotent, and
 * prints one JSON report of counts (and the rows no key opens), never a key. Exit code 1 when some
 * row could not be opened.
 */
import { buildCredentialStore } from "../../shared/compose.ts";
import { resealCredentials } from "../../shared/core/integrations/reseal.ts";
import { resealWebhookSecrets } from "../../shared/core/webhooks/reseal.ts";

interface DenoLike {
  env: { toObject(): Record<string, string> };
  exit(code: number): never;
}
const deno = (globalThis as unknown as { Deno: DenoLike }).Deno;

let code = 0;
try {
  const { db, secretBox } = await buildCredentialStore(deno.env.toObject());
  try {
    const report = await resealCredentials({ serviceDb: db.asService(), secretBox });
    const webhooks = await resealWebhookSecrets({ serviceDb: db.asService(), secretBox });
    console.log(JSON.stringify({ ...report, webhooks }, null, 2));
    if (report.unopenable.length > 0) {
      console.error(`${report.unopenable.length} credential(s) could not be opened with any configured key`);
      code = 1;
    }
    if (webhooks.unopenable.length > 0) {
      console.error(
        `${webhooks.unopenable.length} webhook secret(s) could not be opened with any configured key`,
      );
      code = 1;
    }
  } finally {
    await db.close();
  }
} catch (error) {
  // a configuration error names variables, never values; anything else is reduced to its message
  console.error(`credentials:reseal failed: ${error instanceof Error ? error.message : String(error)}`);
  code = 2;
}
deno.exit(code);
