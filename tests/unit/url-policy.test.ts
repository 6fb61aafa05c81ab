/**
 * The SSRF policy for credential URLs: https to public hosts only. Host names are judged after
 * stripping trailing dots; IPv6 literals by range, applying the IPv4 rules to an embedded IPv4
 * (IPv4-compatible, IPv4-mapped, NAT64, 6to4).
 */
import { describe, expect, it } from "vitest";
import {
  assertProviderUrl,
  HostResolutionError,
  isPublicAddress,
  type Resolver,
  resolveProviderUrl,
  UnsafeProviderUrlError,
} from "../../shared/ports/egress/url-policy.ts";

const strict = { allowPrivate: false };

const ALLOWED = [
  "https://api.provider.example/v1",
  "https://api.provider.example./v1", // a trailing dot on a public name is still that public name
  "https://8.8.8.8/",
  "https://1.1.1.1:8443/v1",
  "https://172.32.0.1/", // just outside 172.16/12
  "https://100.128.0.1/", // just outside 100.64/10
  "https://192.0.3.1/", // just outside 192.0.2/24
  "https://198.20.0.1/", // just outside 198.18/15
  "https://223.255.255.254/",
  "https://[2606:4700:4700::1111]/",
  "https://[2a00:1450:4001:82b::200e]/",
  "https://[::ffff:8.8.8.8]/", // mapped, public IPv4
  "https://[64:ff9b::808:808]/", // NAT64, public IPv4
  "https://[2002:808:808::1]/", // 6to4, public IPv4
  // names that only look private
  "https://localhost.provider.example/", // a public name whose first label is "localhost"
  "https://api.mylocal/", // "local" only as a whole label is special
  "https://10.0.0.1.nip.example/", // a name that starts like an address is a name
  // just outside each blocked IPv4 range (over-blocking is a bug too)
  "https://1.0.0.1/",
  "https://8.255.255.255/",
  "https://9.255.255.255/",
  "https://11.0.0.0/",
  "https://126.255.255.255/",
  "https://128.0.0.1/",
  "https://99.64.0.1/",
  "https://101.64.0.1/",
  "https://100.63.255.255/",
  "https://100.128.0.0/",
  "https://168.254.0.1/",
  "https://169.253.255.255/",
  "https://169.255.0.1/",
  "https://171.16.0.1/",
  "https://172.15.255.255/",
  "https://191.0.0.1/",
  "https://192.0.1.1/",
  "https://192.1.0.1/",
  "https://192.1.2.1/",
  "https://193.0.2.1/",
  "https://192.87.99.1/",
  "https://192.88.98.255/",
  "https://192.88.100.0/",
  "https://192.89.99.1/",
  "https://191.88.99.1/",
  "https://192.167.255.255/",
  "https://192.169.0.1/",
  "https://191.168.1.1/",
  "https://197.18.0.1/",
  "https://199.18.0.1/",
  "https://198.17.255.255/",
  "https://198.20.0.0/",
  "https://198.51.99.1/",
  "https://198.51.101.1/",
  "https://198.52.100.1/",
  "https://197.51.100.1/",
  "https://203.0.112.1/",
  "https://203.0.114.1/",
  "https://203.1.113.1/",
  "https://202.0.113.1/",
  "https://223.255.255.255/",
  // IPv6: public IPv4 carried in the forms judged by the IPv4 rules, and the edges of 2000::/3's holes
  "https://[::808:808]/", // IPv4-compatible, public IPv4
  "https://[::ffff:0:808:808]/", // IPv4-translated, public IPv4
  "https://[2000::1]/",
  "https://[3ffe::1]/",
  "https://[2001:200::1]/", // just outside 2001::/23
  "https://[2001:4860:4860::8888]/",
  "https://[2001:db7::1]/", // either side of 2001:db8::/32
  "https://[2001:db9::1]/",
  "https://[3fff:1000::1]/", // just outside 3fff::/20
  // global unicast that only shares some groups with a special prefix is just global unicast
  "https://[2606:4700::ffff:0:a00:1]/", // the IPv4-translated groups, without the zero prefix
  "https://[2606:ff9b::a00:1]/", // the NAT64 second group, without its first
  "https://[2606:ff9b:1::1]/",
  "https://[2606:4700:1::1]/",
  "https://[2606:db8::1]/", // the documentation second group, without 2001
];

const REFUSED: [url: string, why: RegExp][] = [
  ["not a url", /not a valid URL/],
  ["http://api.provider.example/", /https/],
  ["ftp://api.provider.example/", /https/],
  ["https://user:secret@api.provider.example/", /credentials/],
  ["https://user@api.provider.example/", /credentials/],
  ["https://:secret@api.provider.example/", /credentials/],
  ["https://api.provider.example/v1?access_token=secret", /query string or fragment/],
  ["https://api.provider.example/v1?", /query string or fragment/],
  ["https://api.provider.example/v1#secret", /query string or fragment/],
  ["https://api.provider.example/#", /query string or fragment/],
  // names
  ["https://localhost/", /public host/],
  ["https://localhost./", /public host/],
  ["https://LOCALHOST../", /public host/],
  ["https://local%68ost/", /public host/],
  ["https://api.localhost./", /public host/],
  ["https://metadata.google.internal/", /public host/],
  ["https://metadata.google.internal./", /public host/],
  ["https://foo.local./", /public host/],
  ["https://router.home.arpa./", /public host/],
  ["https://home.arpa/", /public host/],
  ["https://nas.lan/", /public host/],
  ["https://metadata/", /public host/],
  ["https://metadata./", /public host/],
  ["https://corp/", /public host/],
  ["https://printer.corp./", /public host/],
  ["https://a.b.internal/", /public host/],
  ["https://./", /public host/],
  // IPv4, in any notation WHATWG URL accepts
  ["https://127.0.0.1/", /public host/],
  ["https://127.0.0.1./", /public host/],
  ["https://127.1/", /public host/],
  ["https://2130706433/", /public host/],
  ["https://0x7f.0.0.1/", /public host/],
  ["https://0177.0.0.1/", /public host/],
  ["https://0.0.0.0/", /public host/],
  ["https://10.1.2.3/", /public host/],
  ["https://100.64.0.0/", /public host/], // 100.64/10, both ends
  ["https://100.64.0.1/", /public host/],
  ["https://100.127.255.255/", /public host/],
  ["https://10.255.255.255/", /public host/],
  ["https://0.255.255.255/", /public host/],
  ["https://127.255.255.255/", /public host/],
  ["https://169.254.0.0/", /public host/],
  ["https://169.254.169.254/", /public host/],
  ["https://172.16.0.1/", /public host/],
  ["https://172.31.255.255/", /public host/],
  ["https://192.0.0.170/", /public host/],
  ["https://192.0.2.10/", /public host/],
  ["https://192.168.1.1/", /public host/],
  ["https://198.18.0.0/", /public host/], // 198.18/15, both ends
  ["https://198.18.0.1/", /public host/],
  ["https://198.19.255.255/", /public host/],
  ["https://192.88.99.0/", /public host/], // 192.88.99/24
  ["https://192.88.99.255/", /public host/],
  ["https://192.0.0.0/", /public host/],
  ["https://192.0.2.255/", /public host/],
  ["https://192.168.255.255/", /public host/],
  ["https://198.51.100.255/", /public host/],
  ["https://203.0.113.255/", /public host/],
  ["https://198.51.100.7/", /public host/],
  ["https://203.0.113.9/", /public host/],
  ["https://224.0.0.0/", /public host/], // 224/4, both ends
  ["https://224.0.0.1/", /public host/],
  ["https://239.255.255.255/", /public host/],
  ["https://240.0.0.1/", /public host/],
  ["https://255.255.255.255/", /public host/],
  // IPv6
  ["https://[::]/", /public host/],
  ["https://[::1]/", /public host/],
  ["https://[0:0:0:0:0:0:0:1]/", /public host/],
  ["https://[::7f00:1]/", /public host/], // IPv4-compatible 127.0.0.1
  ["https://[::127.0.0.1]/", /public host/],
  ["https://[::a9fe:a9fe]/", /public host/], // IPv4-compatible 169.254.169.254
  ["https://[::ffff:127.0.0.1]/", /public host/],
  ["https://[::ffff:7f00:1]/", /public host/],
  ["https://[::ffff:a00:1]/", /public host/], // mapped 10.0.0.1
  ["https://[::ffff:a9fe:a9fe]/", /public host/],
  ["https://[::ffff:0:a9fe:a9fe]/", /public host/], // IPv4-translated
  ["https://[64:ff9b::a9fe:a9fe]/", /public host/], // NAT64
  ["https://[64:ff9b::127.0.0.1]/", /public host/],
  ["https://[64:ff9b:1::a9fe:a9fe]/", /public host/], // local-use NAT64
  ["https://[64:ff9b:1::808:808]/", /public host/],
  ["https://[2002:7f00:1::]/", /public host/], // 6to4 of 127.0.0.1
  ["https://[2002:a9fe:a9fe::1]/", /public host/],
  ["https://[2002:c0a8:101::1]/", /public host/], // 6to4 of 192.168.1.1
  ["https://[fec0::1]/", /public host/], // site-local
  ["https://[feff::1]/", /public host/],
  ["https://[fc00::1]/", /public host/], // unique local
  ["https://[fd12:3456:789a::1]/", /public host/],
  ["https://[fe80::1]/", /public host/], // link-local
  ["https://[febf::1]/", /public host/],
  ["https://[ff02::1]/", /public host/], // multicast
  ["https://[ff0e::1]/", /public host/],
  ["https://[2001:db8::1]/", /public host/], // documentation
  ["https://[2001:DB8:ffff::1]/", /public host/],
  ["https://[3fff::1]/", /public host/], // documentation (RFC 9637)
  ["https://[2001::1]/", /public host/], // Teredo
  ["https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", /public host/],
  ["https://[100::1]/", /public host/], // discard-only
  // a public IPv4 inside an IPv6 range that is not public stays refused
  ["https://[fe80::808:808]/", /public host/],
  ["https://[fc00::808:808]/", /public host/],
  ["https://[::1:808:808]/", /public host/], // neither compatible nor mapped
  ["https://[::1:0:808:808]/", /public host/],
  ["https://[0:1::808:808]/", /public host/], // not a zero /64 prefix
  ["https://[0:0:1::808:808]/", /public host/],
  ["https://[0:0:0:1::808:808]/", /public host/],
  ["https://[64:1::808:808]/", /public host/], // not the NAT64 prefix
  ["https://[64:ff9b:0:1::808:808]/", /public host/],
  ["https://[64:ff9b::1:0:808:808]/", /public host/],
  ["https://[64:ff9b::1:808:808]/", /public host/],
  ["https://[::ffff:1:808:808]/", /public host/],
  ["https://[64:ff9b:0:0:1::808:808]/", /public host/], // outside the NAT64 /96
  ["https://[::ffff:c0a8:101]/", /public host/], // mapped 192.168.1.1
  ["https://[64:ff9b::c0a8:101]/", /public host/], // NAT64 of 192.168.1.1
  ["https://[2002:c612::1]/", /public host/], // 6to4 of 198.18.0.0
  ["https://[1fff:ffff::1]/", /public host/], // either side of 2000::/3
  ["https://[4000::1]/", /public host/],
  ["https://[2001:1ff::1]/", /public host/], // top of 2001::/23
  ["https://[3fff:fff::1]/", /public host/], // top of 3fff::/20
];

describe("assertProviderUrl", () => {
  it.each(ALLOWED)("allows %s", (raw) => {
    expect(assertProviderUrl(raw, strict).href).toBe(new URL(raw).href);
  });

  it.each(REFUSED)("refuses %s", (raw, why) => {
    expect(() => assertProviderUrl(raw, strict)).toThrow(UnsafeProviderUrlError);
    expect(() => assertProviderUrl(raw, strict)).toThrow(why);
  });

  it("names its error", () => {
    const error = (() => {
      try {
        assertProviderUrl("https://127.0.0.1/", strict);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UnsafeProviderUrlError);
    expect((error as Error).name).toBe("UnsafeProviderUrlError");
  });

  it("allows private and plain-http targets only when local development says so", () => {
    const local = { allowPrivate: true };
    expect(assertProviderUrl("http://127.0.0.1:54321/adapter-tax", local).host).toBe("127.0.0.1:54321");
    expect(assertProviderUrl("https://localhost./", local).hostname).toBe("localhost.");
    expect(() => assertProviderUrl("ftp://127.0.0.1/", local)).toThrow(/http\(s\)/);
    expect(() => assertProviderUrl("http://u:p@127.0.0.1/", local)).toThrow(/credentials/);
    expect(() => assertProviderUrl("http://127.0.0.1/?k=v", local)).toThrow(/query string or fragment/);
  });
});

/**
 * A resolver's answers reach the same IPv6 parser as URL hosts, but without the URL parser's
 * normalisation: dotted IPv4 tails, upper case, uncompressed and malformed text all arrive as such.
 */
describe("isPublicAddress on IPv6 text as a resolver writes it", () => {
  it.each([
    "::ffff:8.8.8.8", // a dotted IPv4 tail
    "::ffff:100.200.30.40", // multi-digit octets in every position
    "::ffff:8.8.8.255",
    "64:ff9b::100.200.30.40",
    "2606:4700:0:0:0:0:0:1111", // uncompressed
    "2606:4700:1:2:3:4::1111", // "::" standing for a single group
    "2606:4700::ABCD", // upper case
  ])("takes %s as public", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    ["an octet past 255 in the dotted tail", "::ffff:8.8.8.256"],
    ["text after the dotted tail", "::ffff:8.8.8.8x"],
    ["two ::", "2606:4700::1111::1"],
    ["two :: around eight groups", "2606:4700:0:0::0:0:0:1111::1"],
    ["nine groups", "2606:4700:0:0:0:0:0:1111:1"],
    ["seven groups and no ::", "2606:4700:0:0:0:0:1111"],
    ['a "::" that stands for nothing', "2606:4700:1:2:3:4:5::1111"],
    ["a group that is not hex", "2606:4700::zzzz"],
    ["a group with a stray character before it", "2606:4700::x1111"],
    ["a group of five digits", "2606:4700::11111"],
  ])("refuses %s (%s)", (_what, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe("isPublicAddress on IPv4 text", () => {
  it.each([
    ["8.8.8.255", true],
    ["8.8.8.256", false],
    ["x8.8.8.8", false],
    ["8.8.8.8x", false],
    ["8.8.8", false],
  ])("takes %s as public: %s", (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe("resolveProviderUrl", () => {
  const asked: string[] = [];
  const recording =
    (answer: string[]): Resolver =>
    async (host) => {
      asked.push(host);
      return answer;
    };

  it("refuses a private IP literal without asking the resolver", async () => {
    asked.length = 0;
    const error = await resolveProviderUrl(new URL("https://10.0.0.1/"), {
      resolve: recording(["8.8.8.8"]),
    }).catch((e: unknown) => e);
    expect(error).toEqual(new UnsafeProviderUrlError("the provider url must point to a public host"));
    expect(asked).toEqual([]);
  });

  it("asks for a name without any of its trailing dots", async () => {
    asked.length = 0;
    await resolveProviderUrl(new URL("https://api.provider.test../v1"), { resolve: recording(["8.8.8.8"]) });
    expect(asked).toEqual(["api.provider.test"]);
  });

  it("passes on the resolver's own resolution error, and wraps any other with its cause", async () => {
    const own = new HostResolutionError("no answer for api.provider.test within 2000 ms");
    const failing =
      (error: unknown): Resolver =>
      () =>
        Promise.reject(error);
    const url = new URL("https://api.provider.test/");
    expect(await resolveProviderUrl(url, { resolve: failing(own) }).catch((e: unknown) => e)).toBe(own);
    const cause = new TypeError("getaddrinfo ENOTFOUND");
    const wrapped = await resolveProviderUrl(url, { resolve: failing(cause) }).catch((e: unknown) => e);
    expect(wrapped).toBeInstanceOf(HostResolutionError);
    expect(wrapped).toMatchObject({
      name: "HostResolutionError",
      message: "the provider host api.provider.test could not be resolved",
      cause,
    });
  });
});
