/**
 * Run under Deno by pinned-egress.test.ts: the production egress parts (shared/providers/
 * deno-network.ts) against an HTTPS server on loopback whose certificate is for
 * `provider.example.test` only. Returns what happened, for the test to judge.
 */
import { buildDeps } from "../../shared/compose.ts";
import { createProviderTransport } from "../../shared/providers/transport.ts";
import { denoNetwork } from "../../shared/runtime/deno-network.ts";
import { createPinnedFetch } from "../../shared/runtime/pinned-fetch.ts";
import { PROVIDER_TLS_CERT, PROVIDER_TLS_KEY, PROVIDER_TLS_NAME } from "../support/provider-tls.ts";

interface DenoServe {
  serve(
    options: { hostname: string; port: number; cert: string; key: string; onListen: () => void },
    handler: (request: Request) => Promise<Response>,
  ): { addr: { port: number }; shutdown(): Promise<void> };
}

export async function pinnedEgressUnderDeno(): Promise<Record<string, unknown>> {
  const deno = (globalThis as unknown as { Deno: DenoServe }).Deno;
  const server = deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: PROVIDER_TLS_CERT, key: PROVIDER_TLS_KEY, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      if (url.pathname.endsWith("/credentials/check")) {
        const ok = request.headers.get("authorization") === "Bearer sk_sandbox_deno";
        return Response.json({ ok, message: ok ? "accepted over a pinned connection" : "no" });
      }
      return Response.json({
        path: `${url.pathname}${url.search}`,
        host: request.headers.get("host"),
        authorization: request.headers.get("authorization"),
        body: await request.text(),
      });
    },
  );
  const port = server.addr.port;
  const results: Record<string, unknown> = { port };
  try {
    const network = denoNetwork({ caCerts: [PROVIDER_TLS_CERT] });
    results.resolves = typeof network?.resolve === "function";
    results.connects = typeof network?.connect === "function";
    if (!network?.connect) return results;
    // the name is not in any DNS: the request can only arrive because the connection is pinned
    const fetch = createPinnedFetch(network.connect, ["127.0.0.1"]);
    const response = await fetch(`https://${PROVIDER_TLS_NAME}:${port}/v1/echo?x=1`, {
      method: "POST",
      headers: { authorization: "Bearer sk_sandbox_deno", "content-type": "application/json" },
      body: JSON.stringify({ hello: "deno" }),
    });
    results.echo = { status: response.status, body: await response.json() };
    results.otherName = await fetch(`https://other.example.test:${port}/v1/echo`).then(
      (r) => `answered ${r.status}`,
      (error: Error) => error.message,
    );
    results.check = await createProviderTransport("adapter-tax", "deno", {
      baseUrl: `https://${PROVIDER_TLS_NAME}:${port}/v1`,
      apiKey: "sk_sandbox_deno",
      timeoutMs: 5_000,
      fetch,
    }).checkCredential();
    // (not devkit/app.ts's constants: that module brings vitest, which Deno does not run)
    const deps = await buildDeps({
      SUPABASE_URL: "http://supabase.test",
      SUPABASE_PUBLISHABLE_KEYS: "sb_publishable_test",
      SUPABASE_SECRET_KEYS: "sb_secret_test",
      EINV_CREDENTIALS_KEY: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
      EINV_LOG_LEVEL: "silent",
    });
    results.composedPins = deps.egress.pins;
    return results;
  } finally {
    await server.shutdown();
  }
}
