/**
 * The URL policy after resolution: every address a name resolves to must be public (IPv4 and IPv6
 * forms, IPv4 carried in IPv6), the resolver port over a DNS lookup (A and AAAA), `reach` (resolve
 * within the timeout, then the pinned fetch for the checked addresses; nothing at all with the local
 * development setting), and the composition root's choice of egress per runtime.
 */
import { describe, expect, it } from "vitest";
import { TEST_API_KEY, TEST_CREDENTIALS_KEY, TEST_URL } from "../../devkit/app.ts";
import { buildDeps } from "../../shared/compose.ts";
import { createDnsResolver, type Egress, noResolver, reach } from "../../shared/ports/egress/egress.ts";
import {
  HostResolutionError,
  isPublicAddress,
  type Resolver,
  resolveProviderUrl,
  UnsafeProviderUrlError,
} from "../../shared/ports/egress/url-policy.ts";
import { denoNetwork } from "../../shared/runtime/deno-network.ts";

describe("isPublicAddress", () => {
  it.each([
    "8.8.8.8",
    "93.184.215.14",
    "1.1.1.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001:82b::200e",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
  ])("takes %s as public", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    ["loopback", "127.0.0.1"],
    ["loopback, elsewhere in 127/8", "127.1.2.3"],
    ["a private address", "10.0.0.1"],
    ["a private address in 172.16/12", "172.31.255.255"],
    ["a private address in 192.168/16", "192.168.1.1"],
    ["link-local, the metadata address", "169.254.169.254"],
    ["carrier-grade NAT", "100.64.0.1"],
    ["this network", "0.0.0.0"],
    ["multicast", "224.0.0.1"],
    ["broadcast", "255.255.255.255"],
    ["IPv6 loopback", "::1"],
    ["IPv6 unspecified", "::"],
    ["IPv4-mapped loopback, dotted", "::ffff:127.0.0.1"],
    ["IPv4-mapped loopback, hex", "::ffff:7f00:1"],
    ["IPv4-mapped metadata address", "::ffff:169.254.169.254"],
    ["IPv6 link-local", "fe80::1"],
    ["IPv6 unique-local", "fd00::1"],
    ["IPv6 multicast", "ff02::1"],
    ["NAT64 of a private address", "64:ff9b::a00:1"],
    ["6to4 of loopback", "2002:7f00:1::1"],
    ["an IPv6 with a zone", "fe80::1%eth0"],
    ["an octet past 255", "256.1.1.1"],
    ["a name", "provider.example.test"],
    ["nothing", ""],
  ])("refuses %s (%s)", (_what, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe("resolveProviderUrl", () => {
  const fixed =
    (answers: Record<string, string[]>): Resolver =>
    async (host) => {
      const answer = answers[host];
      if (!answer) throw new Error(`NXDOMAIN ${host}`);
      return answer;
    };

  it("gives the addresses of a name whose every answer is public, asking without the trailing dot", async () => {
    const resolve = fixed({ "api.provider.test": ["8.8.8.8", "2606:4700::1111"] });
    expect(await resolveProviderUrl(new URL("https://api.provider.test./v1"), { resolve })).toEqual([
      "8.8.8.8",
      "2606:4700::1111",
    ]);
  });

  it("takes an IP literal as its own address, without asking, and refuses a private one", async () => {
    const resolve = fixed({});
    expect(await resolveProviderUrl(new URL("https://8.8.8.8/"), { resolve })).toEqual(["8.8.8.8"]);
    expect(await resolveProviderUrl(new URL("https://[2606:4700::1111]/"), { resolve })).toEqual([
      "2606:4700::1111",
    ]);
    await expect(
      resolveProviderUrl(new URL("https://[::ffff:127.0.0.1]/"), { resolve }),
    ).rejects.toBeInstanceOf(UnsafeProviderUrlError);
  });

  it.each([
    ["loopback", ["127.0.0.1"]],
    ["one private answer among public ones", ["8.8.8.8", "10.0.0.5"]],
    ["IPv4-mapped loopback", ["::ffff:127.0.0.1"]],
    ["the metadata address", ["169.254.169.254"]],
    ["something that is not an address", ["localhost"]],
  ])("refuses a name that resolves to %s", async (_what, answer) => {
    const resolve = fixed({ "rebind.provider.test": answer });
    const error = await resolveProviderUrl(new URL("https://rebind.provider.test/"), { resolve }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(UnsafeProviderUrlError);
    expect(error.message).toBe(
      "the provider url's host rebind.provider.test resolves to an address that is not public",
    );
  });

  it("says a name that does not resolve, or resolves to nothing, could not be resolved", async () => {
    await expect(
      resolveProviderUrl(new URL("https://gone.provider.test/"), { resolve: fixed({}) }),
    ).rejects.toThrow(new HostResolutionError("the provider host gone.provider.test could not be resolved"));
    await expect(
      resolveProviderUrl(new URL("https://empty.provider.test/"), {
        resolve: fixed({ "empty.provider.test": [] }),
      }),
    ).rejects.toThrow(new HostResolutionError("the provider host empty.provider.test has no address"));
  });
});

describe("createDnsResolver", () => {
  const notFound = () => Promise.reject(Object.assign(new Error("no record"), { name: "NotFound" }));

  it("asks A and AAAA and gives the IPv4 answers first", async () => {
    const asked: string[] = [];
    const resolve = createDnsResolver(async (query, type) => {
      asked.push(`${type} ${query}`);
      return type === "A" ? ["8.8.8.8"] : ["2606:4700::1111"];
    });
    expect(await resolve("api.provider.test")).toEqual(["8.8.8.8", "2606:4700::1111"]);
    expect(asked.sort()).toEqual(["A api.provider.test", "AAAA api.provider.test"]);
  });

  it("is content with one record type when the other has none", async () => {
    const v6only = createDnsResolver((_q, type) =>
      type === "AAAA" ? Promise.resolve(["2606:4700::1"]) : notFound(),
    );
    expect(await v6only("v6.provider.test")).toEqual(["2606:4700::1"]);
  });

  it("fails with HostResolutionError when neither answers", async () => {
    const none = createDnsResolver(() => notFound());
    await expect(none("gone.provider.test")).rejects.toBeInstanceOf(HostResolutionError);
  });

  it("passes the signal on", async () => {
    const signals: (AbortSignal | undefined)[] = [];
    const resolve = createDnsResolver(async (_q, _t, options) => {
      signals.push(options?.signal);
      return ["8.8.8.8"];
    });
    const signal = AbortSignal.timeout(1_000);
    await resolve("api.provider.test", signal);
    expect(signals).toEqual([signal, signal]);
  });
});

describe("reach", () => {
  const egress = (resolve: Resolver) => {
    const pinnedTo: (readonly string[])[] = [];
    const fetch = async () => new Response("unpinned");
    const e: Egress = {
      resolve,
      fetch,
      pinned: (addresses) => {
        pinnedTo.push(addresses);
        return async () => new Response("pinned");
      },
      pins: true,
    };
    return { e, pinnedTo };
  };

  it("hands back the fetch pinned to the checked addresses", async () => {
    const { e, pinnedTo } = egress(async () => ["8.8.8.8", "1.1.1.1"]);
    const fetch = await reach(e, new URL("https://api.provider.test/"), {
      allowPrivate: false,
      timeoutMs: 500,
    });
    expect(await (await fetch("https://api.provider.test/x")).text()).toBe("pinned");
    expect(pinnedTo).toEqual([["8.8.8.8", "1.1.1.1"]]);
  });

  it("gives up on a resolver that does not answer within the timeout", async () => {
    const { e } = egress(() => new Promise(() => {}));
    const started = Date.now();
    await expect(
      reach(e, new URL("https://slow.provider.test/"), { allowPrivate: false, timeoutMs: 100 }),
    ).rejects.toThrow(
      new HostResolutionError("the provider host slow.provider.test did not resolve in time"),
    );
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("neither resolves nor pins under the local development setting", async () => {
    const { e, pinnedTo } = egress(() => Promise.reject(new Error("must not be asked")));
    const fetch = await reach(e, new URL("http://localhost:54321/"), { allowPrivate: true, timeoutMs: 100 });
    expect(await (await fetch("http://localhost:54321/")).text()).toBe("unpinned");
    expect(pinnedTo).toEqual([]);
  });
});

describe("the composition root's egress", () => {
  const env = {
    SUPABASE_URL: TEST_URL,
    SUPABASE_PUBLISHABLE_KEYS: TEST_API_KEY,
    SUPABASE_SECRET_KEYS: "sb_secret_test",
    EINV_CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
    EINV_LOG_LEVEL: "silent",
  };

  it("off Deno, without a resolver handed in, resolves nothing, so no name is fetched unchecked", async () => {
    expect(denoNetwork()).toBeUndefined();
    const deps = await buildDeps(env);
    expect(deps.egress.pins).toBe(false);
    await expect(deps.egress.resolve("api.provider.test")).rejects.toBeInstanceOf(HostResolutionError);
    await expect(noResolver("x.test")).rejects.toBeInstanceOf(HostResolutionError);
  });

  it("uses a fetch handed in for every provider call, pinned or not, and the resolver handed in", async () => {
    const handed = async () => new Response("handed");
    const resolver: Resolver = async () => ["8.8.8.8"];
    const deps = await buildDeps(env, { providerFetch: handed, resolver });
    expect(deps.egress.fetch).toBe(handed);
    expect(deps.egress.pinned(["8.8.8.8"])).toBe(handed);
    expect(await deps.egress.resolve("api.provider.test")).toEqual(["8.8.8.8"]);
  });
});
