/**
 * What most route test files open with: their own database, the test app with the given providers
 * at its edge, one tenant whose credentials point at them, and its operador's token.
 *
 *   let db: TestDatabase; let t: TestApp; let tenant: Tenant; let token: string;
 *   beforeAll(async () => {
 *     ({ db, t, tenant, token } = await openRouteSuite({ providerFetch: sandbox.fetch }));
 *   });
 *   afterAll(() => db?.close());
 */
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";
import {
  createSandboxDeliver,
  createSandboxDocsgen,
  createSandboxProvider,
  createSandboxRouter,
  type SandboxDeliver,
  type SandboxFetch,
  type SandboxProvider,
} from "../../sandbox/index.ts";
import type { FetchLike } from "../../shared/providers/tax/client.ts";
import { PROVIDERS } from "./routes.ts";

export interface RouteSuite {
  db: TestDatabase;
  t: TestApp;
  tenant: Tenant;
  /** The tenant's operador's token. */
  token: string;
}

export async function openRouteSuite(
  options: {
    env?: Record<string, string>;
    providerFetch?: FetchLike;
    /**
     * Where the tenant's credentials point: `sandbox` (default), the one provider the credentials'
     * default URL reaches; `router`, the sandbox router's adapter-tax and deliver under PROVIDERS.
     */
    credentials?: "sandbox" | "router";
  } = {},
): Promise<RouteSuite> {
  const db = await createTestDatabase();
  const t = await createTestApp(db, {
    ...(options.env ? { env: options.env } : {}),
    ...(options.providerFetch ? { providerFetch: options.providerFetch } : {}),
  });
  const tenant = await createTenant(db);
  if (options.credentials === "router") {
    await saveRouterCredentials(t, tenant);
  } else {
    await saveCredential(t.deps, tenant);
  }
  return { db, t, tenant, token: await t.token(tenant.operador) };
}

/** Points `tenant`'s adapter-tax and deliver credentials at the sandbox router (`sandboxProviders`). */
export async function saveRouterCredentials(
  t: TestApp,
  tenant: Pick<Tenant, "org" | "company">,
): Promise<void> {
  await saveCredential(t.deps, tenant, { url: `${PROVIDERS}/adapter-tax` });
  await saveCredential(t.deps, tenant, { url: `${PROVIDERS}/deliver`, service: "deliver" });
}

/** The three sandbox services behind one router, as the `router` credentials expect them. */
export function sandboxProviders(
  services: { adapterTax?: SandboxProvider; deliver?: SandboxDeliver } = {},
): SandboxFetch {
  return createSandboxRouter({
    adapterTax: services.adapterTax ?? createSandboxProvider(),
    docsgen: createSandboxDocsgen(),
    deliver: services.deliver ?? createSandboxDeliver(),
  });
}
