/**
 * A credential's `url` is chosen by a tenant's admin and then fetched by the service with a
 * provider key attached: a server-side request forgery vector. Only https URLs to public hosts are
 * allowed; loopback, private, link-local and unique-local targets (and plain http) only when local
 * development explicitly allows them.
 *
 * The URL carries no userinfo, query or fragment: a key travels only in the Authorization header.
 *
 * Host names are compared without their trailing dots (`localhost.` is `localhost`); IPv4 literals
 * arrive as dotted quads (WHATWG URL normalises decimal, octal and hex forms); IPv6 literals are
 * decided by range, and an IPv4 embedded in one (IPv4-compatible, IPv4-mapped, NAT64, 6to4) is
 * judged by the IPv4 rules.
 *
 * `assertProviderUrl` checks the URL as written (host names like `localhost`, IP literals in any
 * common notation). `resolveProviderUrl` then checks what a name stands for: it is resolved through
 * a `Resolver` port (Deno's DNS in production, a fake in tests) and every address of the answer must
 * pass the same rules, in IPv4 and IPv6 forms. Callers connect only to those checked addresses
 * (./egress.ts, ../../runtime/pinned-fetch.ts), so a rebinding answer given after the check is never used.
 * Production egress should still be restricted at the network level too.
 */

export class UnsafeProviderUrlError extends Error {
  override name = "UnsafeProviderUrlError";
}

/** A host name's addresses (IPv4 dotted quads, IPv6 text), A and AAAA together. */
export type Resolver = (host: string, signal?: AbortSignal) => Promise<string[]>;

/** The host name could not be resolved (no such name, no answer in time, no resolver). */
export class HostResolutionError extends Error {
  override name = "HostResolutionError";
}

/**
 * The addresses `url` (already through `assertProviderUrl`) may be reached at, each one checked:
 * an IP literal is its own address; a name is resolved and refused, with UnsafeProviderUrlError,
 * when any address it resolves to is not public (one bad answer taints the name: a resolver may
 * hand out either). A HostResolutionError when the name does not resolve.
 */
export async function resolveProviderUrl(
  url: URL,
  options: { resolve: Resolver; signal?: AbortSignal; noun?: string },
): Promise<string[]> {
  const noun = options.noun ?? "provider";
  const literal = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (isIpLiteral(literal)) {
    if (!isPublicAddress(literal)) {
      throw new UnsafeProviderUrlError(`the ${noun} url must point to a public host`);
    }
    return [literal];
  }
  let addresses: string[];
  try {
    addresses = await options.resolve(url.hostname.replace(/\.+$/, ""), options.signal);
  } catch (error) {
    if (error instanceof HostResolutionError) throw error;
    throw new HostResolutionError(`the ${noun} host ${url.hostname} could not be resolved`, {
      cause: error,
    });
  }
  if (addresses.length === 0) {
    throw new HostResolutionError(`the ${noun} host ${url.hostname} has no address`);
  }
  if (!addresses.every(isPublicAddress)) {
    throw new UnsafeProviderUrlError(
      `the ${noun} url's host ${url.hostname} resolves to an address that is not public`,
    );
  }
  return addresses;
}

/**
 * Whether an address (IPv4 dotted quad or IPv6 text, without brackets) is a public one under the
 * rules below. Anything that does not parse (an IPv6 zone, a name) is not.
 */
export function isPublicAddress(address: string): boolean {
  const v4 = IPV4.exec(address);
  if (v4) {
    const octets = v4.slice(1).map(Number);
    return octets.every((o) => o <= 255) && !isPrivateIPv4(octets);
  }
  const groups = address.includes(":") ? parseIPv6(address) : undefined;
  return groups ? !isPrivateIPv6(groups) : false;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function isIpLiteral(host: string): boolean {
  return IPV4.test(host) || host.includes(":");
}

/**
 * `raw` as a URL the policy allows, or UnsafeProviderUrlError saying why. `noun` names whose url it
 * is in the message (default `provider`; webhooks pass `webhook`).
 */
export function assertProviderUrl(raw: string, options: { allowPrivate: boolean; noun?: string }): URL {
  const noun = options.noun ?? "provider";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeProviderUrlError(`the ${noun} url is not a valid URL`);
  }
  if (url.username || url.password)
    throw new UnsafeProviderUrlError(`the ${noun} url must not carry credentials`);
  // A query or fragment has no use (the provider calls resolve their paths against the url, which
  // drops both) and is where tokens get pasted: refused, so none is stored, logged or in an event.
  // `?` and `#` in the serialised url are only ever those delimiters, even when left empty.
  if (/[?#]/.test(url.href)) {
    throw new UnsafeProviderUrlError(`the ${noun} url must not carry a query string or fragment`);
  }
  if (options.allowPrivate) {
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new UnsafeProviderUrlError(`the ${noun} url must be http(s)`);
    }
    return url;
  }
  if (url.protocol !== "https:") throw new UnsafeProviderUrlError(`the ${noun} url must use https`);
  if (isPrivateHost(url.hostname)) {
    throw new UnsafeProviderUrlError(`the ${noun} url must point to a public host`);
  }
  return url;
}

/**
 * Whether `url`'s host is one the policy counts as private as written (loopback, private ranges,
 * special-use and private-use names, single labels): what local development may target when it
 * allows private URLs, and nothing public.
 */
export function isPrivateTarget(url: URL): boolean {
  return isPrivateHost(url.hostname);
}

/**
 * Names that never belong to a public provider: RFC 6761 special-use (`localhost`, `local`,
 * `home.arpa`) and the private-use TLDs of RFC 6762 appendix G, plus `internal` (cloud metadata).
 */
const PRIVATE_NAMES =
  /(^|\.)(localhost|localdomain|local|internal|intranet|private|corp|home|lan|home\.arpa)$/i;

function isPrivateHost(hostname: string): boolean {
  if (hostname.startsWith("[")) {
    const groups = parseIPv6(hostname.slice(1, -1));
    return groups ? isPrivateIPv6(groups) : true;
  }
  // `localhost.` is `localhost`: a trailing dot only makes a name fully qualified.
  const host = hostname.toLowerCase().replace(/\.+$/, "");
  // A single label (`metadata`, `intranet`, or nothing at all) resolves through the search domains.
  if (!host.includes(".") || PRIVATE_NAMES.test(host)) return true;
  // WHATWG URL parsing already normalised decimal/octal/hex and trailing-dot IPv4 forms to dotted quads.
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return v4 ? isPrivateIPv4(v4.slice(1).map(Number)) : false;
}

function isPrivateIPv4([a = 0, b = 0, c = 0, d = 0]: number[]): boolean {
  return (
    a === 0 || // "this network"
    a === 10 ||
    a === 127 || // loopback
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 0 && c === 0) || // IETF protocol assignments
    (a === 192 && b === 0 && c === 2) || // documentation (TEST-NET-1)
    (a === 192 && b === 88 && c === 99) || // 6to4 relay anycast (deprecated)
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) || // documentation (TEST-NET-2)
    (a === 203 && b === 0 && c === 113) || // documentation (TEST-NET-3)
    (a >= 224 && a <= 239) || // multicast
    a >= 240 || // reserved 240/4
    (a === 255 && b === 255 && c === 255 && d === 255) // broadcast (inside 240/4, named for clarity)
  );
}

/**
 * Decided by range on the eight 16-bit groups. Only global unicast (2000::/3) is public, minus its
 * special-purpose blocks; an IPv4 carried inside an IPv6 address is judged by the IPv4 rules.
 */
function isPrivateIPv6(g: number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const tail = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
  const zeroPrefix = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0;
  // ::/96 IPv4-compatible (also :: and ::1, which map to 0.0.0.0/8), ::ffff:0:0/96 IPv4-mapped,
  // ::ffff:0:0:0/96 IPv4-translated.
  if (zeroPrefix && g4 === 0 && (g5 === 0 || g5 === 0xffff)) return isPrivateIPv4(tail(g6, g7));
  if (zeroPrefix && g4 === 0xffff && g5 === 0) return isPrivateIPv4(tail(g6, g7));
  // 64:ff9b::/96 well-known NAT64 prefix.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return isPrivateIPv4(tail(g6, g7));
  }
  // 64:ff9b:1::/48 local-use NAT64 (RFC 8215): a site's own translator, never a public target.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return true;
  // 2002::/16 6to4: the IPv4 of the tunnel end is in the next 32 bits.
  if (g0 === 0x2002) return isPrivateIPv4(tail(g1, g2));
  // Everything outside 2000::/3: unspecified/compatible leftovers, discard-only 100::/64,
  // unique-local fc00::/7, link-local fe80::/10, site-local fec0::/10, multicast ff00::/8, …
  if ((g0 & 0xe000) !== 0x2000) return true;
  return (
    (g0 === 0x2001 && g1 < 0x200) || // 2001::/23 IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID
    (g0 === 0x2001 && g1 === 0xdb8) || // 2001:db8::/32 documentation
    (g0 === 0x3fff && g1 < 0x1000) // 3fff::/20 documentation
  );
}

/** The eight groups of an IPv6 literal (with `::` and an optional dotted IPv4 tail), or undefined. */
function parseIPv6(text: string): number[] | undefined {
  let body = text.toLowerCase();
  const dotted = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(body);
  if (dotted) {
    const octets = dotted.slice(2).map(Number) as [number, number, number, number];
    if (octets.some((o) => o > 255)) return undefined;
    const hex = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
    body = `${dotted[1]}${hex(octets[0], octets[1])}:${hex(octets[2], octets[3])}`;
  }
  const halves = body.split("::");
  if (halves.length > 2) return undefined;
  const part = (s: string | undefined) => (s ? s.split(":") : []);
  const head = part(halves[0]);
  const rest = part(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  if (!all.every((h) => /^[0-9a-f]{1,4}$/.test(h))) return undefined;
  return all.map((h) => Number.parseInt(h, 16));
}
