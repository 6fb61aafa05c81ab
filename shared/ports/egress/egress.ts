/**
 * How provider requests leave the service. A credential's host is resolved and every address checked
 * (./url-policy.ts) before anything is sent, and the request then goes to one of those checked
 * addresses — never to whatever the runtime's own resolver answers a moment later — with TLS and the
 * Host header still for the URL's name. The composition root picks the runtime's parts
 * (../../runtime/deno-network.ts in production); tests hand in a fake resolver and an in-process fetch.
 */
import { deadline } from "../../kernel/deadline.ts";
import type { FetchLike } from "./exchange.ts";
import {
  HostResolutionError,
  type Resolver,
  resolveProviderUrl,
  UnsafeProviderUrlError,
} from "./url-policy.ts";

export interface Egress {
  /** A host name's addresses. */
  resolve: Resolver;
  /** The fetch for targets that are not checked (local development's private URLs). */
  fetch: FetchLike;
  /**
   * A fetch whose connections go to these checked addresses only (the first that accepts), with TLS
   * (SNI, certificate check) and the Host header for the URL's own name.
   */
  pinned(addresses: readonly string[]): FetchLike;
  /**
   * False when this runtime cannot pin (Node, or a Deno without `connect`/`startTls`) or when an
   * in-process fetch stands in for the network: `pinned` then fetches by name after the check.
   */
  readonly pins: boolean;
}

/**
 * The fetch that reaches `url` (already through `assertProviderUrl`): resolved and checked unless
 * local development allows private targets. Throws UnsafeProviderUrlError when an address is not
 * public, HostResolutionError when the name does not resolve within `timeoutMs`.
 */
export async function reach(
  egress: Egress,
  url: URL,
  options: { allowPrivate: boolean; timeoutMs: number; noun?: string },
): Promise<FetchLike> {
  if (options.allowPrivate) return egress.fetch;
  // cleared once resolved, so that the timer does not keep the signal and its listener (../../kernel/deadline.ts)
  const { signal, stop } = deadline(options.timeoutMs);
  const addresses = await Promise.race([
    resolveProviderUrl(url, {
      resolve: egress.resolve,
      signal,
      ...(options.noun ? { noun: options.noun } : {}),
    }),
    new Promise<never>((_, reject) =>
      signal.addEventListener(
        "abort",
        () =>
          reject(
            new HostResolutionError(
              `the ${options.noun ?? "provider"} host ${url.hostname} did not resolve in time`,
            ),
          ),
        { once: true },
      ),
    ),
  ]).finally(stop);
  return egress.pinned(addresses);
}

export { HostResolutionError, UnsafeProviderUrlError };

/** Deno.resolveDns's shape: one record type at a time, NotFound when there is no such record. */
export type ResolveDns = (
  query: string,
  recordType: "A" | "AAAA",
  options?: { signal?: AbortSignal },
) => Promise<string[]>;

/**
 * A Resolver over a DNS lookup function: A and AAAA asked together, their answers merged (A first,
 * so an IPv4-only network connects at once). A name with neither is a HostResolutionError; one
 * record type failing while the other answers is fine, since only answered addresses are used.
 */
export function createDnsResolver(resolveDns: ResolveDns): Resolver {
  return async (host, signal) => {
    const answers = await Promise.allSettled([
      resolveDns(host, "A", signal ? { signal } : {}),
      resolveDns(host, "AAAA", signal ? { signal } : {}),
    ]);
    const addresses = answers.flatMap((a) => (a.status === "fulfilled" ? a.value : []));
    if (addresses.length > 0) return addresses;
    const failure = answers.find((a) => a.status === "rejected");
    throw new HostResolutionError(`the provider host ${host} could not be resolved`, {
      cause: failure?.status === "rejected" ? failure.reason : undefined,
    });
  };
}

/** The resolver of a runtime that has none: every name fails, so nothing is fetched unchecked. */
export const noResolver: Resolver = (host) =>
  Promise.reject(new HostResolutionError(`no DNS resolver in this runtime to check ${host}`));
