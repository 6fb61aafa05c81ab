/**
 * A credential's `url` is chosen by a tenant's admin and then fetched by the service with a
 * provider key attached: a server-side request forgery vector. Only https URLs to public hosts are
 * allowed; loopback, private, link-local and unique-local targets (and plain http) only when local
 * development explicitly allows them.
 *
 * Limits: this checks the URL as written (host names like `localhost`, IP literals in any common
 * notation). A public name that resolves to a private address is not caught here; production
 * egress should also be restricted at the network level.
 */

export class UnsafeProviderUrlError extends Error {
  override name = "UnsafeProviderUrlError";
}

export function assertProviderUrl(raw: string, options: { allowPrivate: boolean }): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeProviderUrlError("the provider url is not a valid URL");
  }
  if (url.username || url.password)
    throw new UnsafeProviderUrlError("the provider url must not carry credentials");
  if (options.allowPrivate) {
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new UnsafeProviderUrlError("the provider url must be http(s)");
    }
    return url;
  }
  if (url.protocol !== "https:") throw new UnsafeProviderUrlError("the provider url must use https");
  if (isPrivateHost(url.hostname)) {
    throw new UnsafeProviderUrlError("the provider url must point to a public host");
  }
  return url;
}

const PRIVATE_NAMES = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/i;

function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (PRIVATE_NAMES.test(host) || (!host.includes(".") && !host.includes(":"))) return true;
  if (host.includes(":")) return isPrivateIPv6(host);
  // WHATWG URL parsing already normalised decimal/octal/hex IPv4 forms to dotted quads.
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  return v4 ? isPrivateIPv4(v4.slice(1).map(Number)) : false;
}

function isPrivateIPv4([a = 0, b = 0]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

function isPrivateIPv6(host: string): boolean {
  if (host === "::" || host === "::1") return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
  if (mapped?.[1]) return isPrivateIPv4(mapped[1].split(".").map(Number));
  if (/^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/.test(host)) return true; // mapped, hex form: refuse
  return /^(fc|fd|fe8|fe9|fea|feb)/.test(host);
}
