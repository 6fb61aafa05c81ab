/**
 * The SSRF policy for credential URLs: https to public hosts only. Host names are judged after
 * stripping trailing dots; IPv6 literals by range, applying the IPv4 rules to an embedded IPv4
 * (IPv4-compatible, IPv4-mapped, NAT64, 6to4).
 */
import { describe, expect, it } from "vitest";
import { assertProviderUrl, UnsafeProviderUrlError } from "../../shared/providers/url-policy.ts";

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
];

const REFUSED: [url: string, why: RegExp][] = [
  ["not a url", /not a valid URL/],
  ["http://api.provider.example/", /https/],
  ["ftp://api.provider.example/", /https/],
  ["https://user:secret@api.provider.example/", /credentials/],
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
  ["https://nas.lan/", /public host/],
  ["https://metadata/", /public host/],
  ["https://metadata./", /public host/],
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
  ["https://100.64.0.1/", /public host/],
  ["https://169.254.169.254/", /public host/],
  ["https://172.16.0.1/", /public host/],
  ["https://172.31.255.255/", /public host/],
  ["https://192.0.0.170/", /public host/],
  ["https://192.0.2.10/", /public host/],
  ["https://192.168.1.1/", /public host/],
  ["https://198.18.0.1/", /public host/],
  ["https://198.51.100.7/", /public host/],
  ["https://203.0.113.9/", /public host/],
  ["https://224.0.0.1/", /public host/],
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
];

describe("assertProviderUrl", () => {
  it.each(ALLOWED)("allows %s", (raw) => {
    expect(assertProviderUrl(raw, strict).href).toBe(new URL(raw).href);
  });

  it.each(REFUSED)("refuses %s", (raw, why) => {
    expect(() => assertProviderUrl(raw, strict)).toThrow(UnsafeProviderUrlError);
    expect(() => assertProviderUrl(raw, strict)).toThrow(why);
  });

  it("allows private and plain-http targets only when local development says so", () => {
    const local = { allowPrivate: true };
    expect(assertProviderUrl("http://127.0.0.1:54321/adapter-tax", local).host).toBe("127.0.0.1:54321");
    expect(assertProviderUrl("https://localhost./", local).hostname).toBe("localhost.");
    expect(() => assertProviderUrl("ftp://127.0.0.1/", local)).toThrow(/http\(s\)/);
    expect(() => assertProviderUrl("http://u:p@127.0.0.1/", local)).toThrow(/credentials/);
  });
});
