/**
 * The Deno runtime's parts of the provider egress (../ports/egress/egress.ts): DNS through `Deno.resolveDns` (A and
 * AAAA), and pinned connections through `Deno.connect` to the checked address, then `Deno.startTls`
 * with the URL's name (SNI and the certificate check). Nothing is imported: the `Deno` global is
 * looked up, so this module loads on Node too, where it reports that it has nothing to offer.
 */
import { createDnsResolver } from "../ports/egress/egress.ts";
import type { Resolver } from "../ports/egress/url-policy.ts";
import type { Connect, Connection } from "./pinned-fetch.ts";

interface DenoConn extends Connection {}

/** The parts of the `Deno` namespace used here (a subset of its real types). */
interface DenoNetworkApi {
  resolveDns?: (
    query: string,
    recordType: "A" | "AAAA",
    options?: { signal?: AbortSignal },
  ) => Promise<string[]>;
  connect?: (options: { hostname: string; port: number; transport?: "tcp" }) => Promise<DenoConn>;
  startTls?: (conn: DenoConn, options: { hostname: string; caCerts?: string[] }) => Promise<DenoConn>;
}

export interface RuntimeNetwork {
  resolve: Resolver;
  /** Absent when the runtime cannot open TCP and TLS connections itself. */
  connect?: Connect;
}

/**
 * Deno's resolver and connector, or undefined when this is not Deno (or has no `resolveDns`).
 * `caCerts` adds trusted roots (tests with a self-signed provider); production passes none.
 */
export function denoNetwork(options: { caCerts?: string[] } = {}): RuntimeNetwork | undefined {
  const deno = (globalThis as unknown as { Deno?: DenoNetworkApi }).Deno;
  const resolveDns = deno?.resolveDns?.bind(deno);
  if (!resolveDns) return undefined;
  const resolve = createDnsResolver((query, type, opts) => resolveDns(query, type, opts));
  const connect = deno?.connect?.bind(deno);
  const startTls = deno?.startTls?.bind(deno);
  if (!connect || !startTls) return { resolve };
  return {
    resolve,
    connect: async ({ address, port, tls }) => {
      const tcp = await connect({ hostname: address, port, transport: "tcp" });
      if (tls === null) return tcp;
      try {
        return await startTls(tcp, {
          hostname: tls,
          ...(options.caCerts ? { caCerts: options.caCerts } : {}),
        });
      } catch (error) {
        try {
          tcp.close();
        } catch {
          // consumed or already closed
        }
        throw error;
      }
    },
  };
}
