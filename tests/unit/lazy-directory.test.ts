/**
 * The provider directory every operation is handed (shared/providers/lazy-directory.ts): the real
 * one — the adapters, their clients and the protocol's schemas — is imported only when a client is
 * first asked for, so an operation that never calls a provider (a cached /representation) does not
 * load them; rows primed before that reach the real directory first, in order; a failed import is
 * tried again with them.
 */
import { describe, expect, it } from "vitest";
import type { CredentialRow } from "../../shared/kernel/rows.ts";
import type { ProviderDirectory } from "../../shared/ports/providers/directory.ts";
import type { TaxAdapter } from "../../shared/ports/providers/protocol.ts";
import { lazyProviderDirectory } from "../../shared/providers/lazy-directory.ts";

function realDirectory(log: string[]): ProviderDirectory {
  return {
    taxAdapter: async (orgId, companyId, environment) => {
      log.push(`taxAdapter ${orgId} ${companyId} ${environment}`);
      return { name: "tax" } as unknown as TaxAdapter;
    },
    documentGenerator: async () => {
      log.push("documentGenerator");
      return null;
    },
    deliveryChannel: async () => {
      log.push("deliveryChannel");
      return {} as never;
    },
    prime: (service, orgId, needed, rows) => {
      log.push(`prime ${service} ${orgId} ${needed.map((n) => n.company_id).join(",")} ${rows.length}`);
    },
  };
}

const row = {} as CredentialRow;

describe("the lazy provider directory", () => {
  it("imports nothing while no client is asked for, primes included", () => {
    let loads = 0;
    const directory = lazyProviderDirectory(async () => {
      loads++;
      return realDirectory([]);
    });
    directory.prime("adapter-tax", "org", [{ company_id: "c1", environment: "uat" }], [row]);
    expect(loads).toBe(0);
  });

  it("hands the primed rows to the real directory, in order, before the first client, then passes through", async () => {
    const log: string[] = [];
    let loads = 0;
    const directory = lazyProviderDirectory(async () => {
      loads++;
      return realDirectory(log);
    });
    directory.prime("adapter-tax", "org", [{ company_id: "c1", environment: "uat" }], [row]);
    directory.prime("docsgen", "org", [{ company_id: "c2", environment: "prd" }], [row, row]);
    const [tax, generator] = await Promise.all([
      directory.taxAdapter("org", "c1", "uat"),
      directory.documentGenerator("org", "c2", "prd"),
    ]);
    expect(tax).toEqual({ name: "tax" });
    expect(generator).toBeNull();
    directory.prime("deliver", "org", [{ company_id: "c3", environment: "uat" }], []);
    await directory.deliveryChannel("org", "c3", "uat");
    expect(loads).toBe(1);
    expect(log).toEqual([
      "prime adapter-tax org c1 1",
      "prime docsgen org c2 2",
      "taxAdapter org c1 uat",
      "documentGenerator",
      "prime deliver org c3 0",
      "deliveryChannel",
    ]);
  });

  it("tries a failed import again on the next ask, the primes kept", async () => {
    const log: string[] = [];
    let loads = 0;
    const directory = lazyProviderDirectory(async () => {
      loads++;
      if (loads === 1) throw new Error("import failed");
      return realDirectory(log);
    });
    directory.prime("adapter-tax", "org", [{ company_id: "c1", environment: "uat" }], [row]);
    await expect(directory.taxAdapter("org", "c1", "uat")).rejects.toThrow("import failed");
    await directory.taxAdapter("org", "c1", "uat");
    expect(loads).toBe(2);
    expect(log).toEqual(["prime adapter-tax org c1 1", "taxAdapter org c1 uat"]);
  });
});
