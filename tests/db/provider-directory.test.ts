/**
 * The provider directory applies the URL policy to every stored credential before a client is built
 * with its key: a credential pointing at a private host (or over plain http, or with user info) is
 * unusable for each of the three services, unless local development allows private URLs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";
import { createSandboxProvider } from "../../sandbox/provider.ts";
import { BusinessRuleError } from "../../shared/kernel/errors.ts";
import type { ProviderService } from "../../shared/ports/providers/errors.ts";
import { createProviderDirectory } from "../../shared/providers/directory.ts";
import { makeDocument } from "../providers/fixtures.ts";

let db: TestDatabase;
let t: TestApp;

beforeAll(async () => {
  db = await createTestDatabase();
  t = await createTestApp(db);
});
afterAll(() => db?.close());

const sandbox = createSandboxProvider();

const directory = (allowPrivateUrls: boolean) =>
  createProviderDirectory({
    serviceDb: t.deps.db.asService(),
    secretBox: t.deps.secretBox,
    timeoutMs: 2_000,
    allowPrivateUrls,
    fetch: sandbox.fetch,
  });

const SERVICES: ProviderService[] = ["adapter-tax", "docsgen", "deliver"];

/** A tenant whose company has a credential at `url` for every service. */
async function tenantWithCredentials(url: string): Promise<Tenant> {
  const tenant = await createTenant(db);
  for (const service of SERVICES) await saveCredential(t.deps, tenant, { url, service });
  return tenant;
}

/** What asking the directory for each service's client gives: the error message, or "usable". */
async function clients(tenant: Tenant, allowPrivateUrls: boolean): Promise<string[]> {
  const d = directory(allowPrivateUrls);
  const args = [tenant.org.id, tenant.company.id, "uat"] as const;
  const attempts: Promise<unknown>[] = [
    d.taxAdapter(...args),
    d.documentGenerator(...args),
    d.deliveryChannel(...args),
  ];
  return Promise.all(
    attempts.map((attempt) =>
      attempt.then(
        (client) => (client ? "usable" : "none"),
        (error: unknown) =>
          error instanceof BusinessRuleError ? error.message : `unexpected: ${String(error)}`,
      ),
    ),
  );
}

describe("the provider directory", () => {
  it.each([
    ["a loopback address", "https://127.0.0.1/v1", /must point to a public host/],
    ["the cloud metadata address", "https://169.254.169.254/", /must point to a public host/],
    ["a link-local IPv6 carrying a public IPv4", "https://[fe80::808:808]/", /must point to a public host/],
    ["a private name", "https://provider.internal/", /must point to a public host/],
    ["plain http", "http://provider.example.test/v1", /must use https/],
    ["user info", "https://user@provider.example.test/v1", /must not carry credentials/],
  ])("refuses a credential at %s for every service", async (_what, url, why) => {
    const tenant = await tenantWithCredentials(url);
    const messages = await clients(tenant, false);
    expect(messages).toHaveLength(3);
    for (const [i, message] of messages.entries()) {
      expect(message).toMatch(why);
      expect(message).toMatch(
        new RegExp(`^The saved ${SERVICES[i]} credential for uat cannot be used: .*; save it again\\.$`),
      );
    }
  });

  it("allows private and plain-http URLs only when local development says so", async () => {
    const tenant = await tenantWithCredentials("http://127.0.0.1:54321/");
    expect(await clients(tenant, true)).toEqual(["usable", "usable", "usable"]);
    const tax = await directory(true).taxAdapter(tenant.org.id, tenant.company.id, "uat");
    const doc = makeDocument();
    expect((await tax.submit(doc)).status).toBe("accepted");
  });

  it("builds clients for a credential at a public https URL", async () => {
    const tenant = await tenantWithCredentials("https://provider.example.test/v1");
    expect(await clients(tenant, false)).toEqual(["usable", "usable", "usable"]);
  });
});
