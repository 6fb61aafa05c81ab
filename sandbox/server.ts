/**
 * `npm run sandbox`: the sandbox providers over HTTP on 127.0.0.1:${SANDBOX_PORT ?? 54329}:
 * adapter-tax at the root (and at /adapter-tax), docsgen at /docsgen, deliver at /deliver, the DIAN
 * stand-in at /dian
 * (./router.ts). A small node:http → fetch bridge (no extra dependency), so it runs under Deno (the
 * npm script) and Node alike. Knobs come from the environment once at start, apply to all three, and
 * can be changed at runtime through each service's POST /_sandbox/knobs. See docs/sandbox.md.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { concatBytes } from "../shared/kernel/bytes.ts";
import type { SandboxFetch } from "./common.ts";
import { createSandboxDeliver, type SandboxDeliver } from "./deliver.ts";
import { createDianStandIn, type DianStandIn } from "./dian/index.ts";
import { createSandboxDocsgen, type SandboxDocsgen } from "./docsgen.ts";
import { createSandboxProvider, type SandboxKnobsPatch, type SandboxProvider } from "./provider.ts";
import { createSandboxRouter } from "./router.ts";

const int = z.coerce.number().int().min(0);
const rate = z.coerce.number().min(0).max(1);
const Env = z.object({
  SANDBOX_HOST: z.string().default("127.0.0.1"),
  SANDBOX_PORT: int.max(65_535).default(54329),
  SANDBOX_API_KEYS: z.string().optional(),
  SANDBOX_LATENCY_MS: int.optional(),
  SANDBOX_CONCURRENCY: int.optional(),
  SANDBOX_HANG_MS: int.optional(),
  SANDBOX_TIMEOUT_RATE: rate.optional(),
  SANDBOX_ERROR_RATE: rate.optional(),
  SANDBOX_MALFORMED_RATE: rate.optional(),
  SANDBOX_PENDING_POLLS: int.optional(),
  SANDBOX_SEED: z.coerce.number().int().optional(),
  SANDBOX_OUTBOX_DIR: z.string().optional(),
  SANDBOX_DIAN_REQUESTS_DIR: z.string().optional(),
});

export interface SandboxServerConfig {
  host: string;
  port: number;
  apiKeys: string[] | undefined;
  knobs: SandboxKnobsPatch;
  /** Where the deliver sandbox writes the messages it sends (needs write access). */
  outboxDir: string | undefined;
  /** Where the DIAN stand-in writes every request it receives (needs write access). */
  dianRequestsDir: string | undefined;
}

/** Reads the SANDBOX_* variables; throws naming the bad variable. */
export function sandboxConfigFromEnv(env: Record<string, string | undefined>): SandboxServerConfig {
  const parsed = Env.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== "")));
  if (!parsed.success) {
    throw new Error(
      `invalid sandbox configuration: ${parsed.error.issues.map((i) => i.path.join(".")).join(", ")}`,
    );
  }
  const e = parsed.data;
  const knobs: SandboxKnobsPatch = {
    latencyMs: e.SANDBOX_LATENCY_MS,
    concurrencyLimit: e.SANDBOX_CONCURRENCY,
    hangMs: e.SANDBOX_HANG_MS,
    timeoutRate: e.SANDBOX_TIMEOUT_RATE,
    errorRate: e.SANDBOX_ERROR_RATE,
    malformedRate: e.SANDBOX_MALFORMED_RATE,
    pendingPolls: e.SANDBOX_PENDING_POLLS,
    seed: e.SANDBOX_SEED,
  };
  const apiKeys = e.SANDBOX_API_KEYS?.split(",")
    .map((k) => k.trim())
    .filter(Boolean);
  return {
    host: e.SANDBOX_HOST,
    port: e.SANDBOX_PORT,
    apiKeys: apiKeys?.length ? apiKeys : undefined,
    outboxDir: e.SANDBOX_OUTBOX_DIR,
    dianRequestsDir: e.SANDBOX_DIAN_REQUESTS_DIR,
    knobs: Object.fromEntries(Object.entries(knobs).filter(([, v]) => v !== undefined)),
  };
}

export interface RunningSandbox {
  /** The origin; adapter-tax's base URL. docsgen is at `${url}/docsgen`, deliver at `${url}/deliver`. */
  url: string;
  provider: SandboxProvider;
  docsgen: SandboxDocsgen;
  deliver: SandboxDeliver;
  dian: DianStandIn;
  close(): Promise<void>;
}

export interface SandboxServerOptions {
  host?: string;
  /** 0 picks a free port (tests). */
  port?: number;
  /** Default: a fresh createSandboxDocsgen(). */
  docsgen?: SandboxDocsgen;
  /** Default: a fresh createSandboxDeliver(). */
  deliver?: SandboxDeliver;
  /** Default: a fresh createDianStandIn() (an empty registry: seed it in-process). */
  dian?: DianStandIn;
}

/** Serves `provider` (at the root and /adapter-tax), docsgen (/docsgen) and deliver (/deliver) over HTTP. */
export async function startSandboxServer(
  provider: SandboxProvider,
  options: SandboxServerOptions = {},
): Promise<RunningSandbox> {
  const { host = "127.0.0.1", port = 54329 } = options;
  const docsgen = options.docsgen ?? createSandboxDocsgen();
  const deliver = options.deliver ?? createSandboxDeliver();
  const dian = options.dian ?? createDianStandIn();
  const handler = createSandboxRouter(
    { adapterTax: provider, docsgen, deliver, dian },
    { adapterTaxAtRoot: true },
  );
  const server: Server = createServer((req, res) => {
    bridge(handler, req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: "internal", message: String(error) } }));
    });
  });
  await new Promise<void>((done, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => done());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}`,
    provider,
    docsgen,
    deliver,
    dian,
    close: () =>
      new Promise<void>((done, reject) => {
        // releases hung answers so their connections can finish
        for (const service of [provider, docsgen, deliver, dian]) service.reset();
        server.close((error) => (error ? reject(error) : done()));
        server.closeAllConnections?.();
      }),
  };
}

async function bridge(handler: SandboxFetch, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const abort = new AbortController();
  // A client that gives up (its timeout) closes the socket: the sandbox sees the abort.
  res.on("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  const chunks: Uint8Array[] = [];
  for await (const chunk of req) chunks.push(chunk as Uint8Array);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? undefined : concatBytes(chunks);
  const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`);
  const response = await handler(new Request(url, { method, headers, body, signal: abort.signal }));
  if (abort.signal.aborted) return;
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(new Uint8Array(await response.arrayBuffer()));
}

async function main(): Promise<void> {
  const config = sandboxConfigFromEnv(process.env);
  const shared = { apiKeys: config.apiKeys, knobs: config.knobs };
  const running = await startSandboxServer(createSandboxProvider(shared), {
    host: config.host,
    port: config.port,
    docsgen: createSandboxDocsgen(shared),
    deliver: createSandboxDeliver({ ...shared, outboxDir: config.outboxDir }),
    dian: createDianStandIn({ requestsDir: config.dianRequestsDir }),
  });
  const provider = running.provider;
  // Configured keys are not echoed; the default accepts any sk_sandbox_ key.
  const key = config.apiKeys ? "<one of SANDBOX_API_KEYS>" : "sk_sandbox_local";
  console.log(`sandbox providers listening on ${running.url}`);
  console.log(`  adapter-tax: ${running.url} (also ${running.url}/adapter-tax)`);
  console.log(`  docsgen:     ${running.url}/docsgen`);
  console.log(
    `  deliver:     ${running.url}/deliver${config.outboxDir ? ` (outbox: ${config.outboxDir})` : ""}`,
  );
  console.log(
    `  api key: ${config.apiKeys ? "one of SANDBOX_API_KEYS" : `any key starting with sk_sandbox_, e.g. ${key}`}`,
  );
  console.log(`  knobs:   ${JSON.stringify(provider.knobs)}`);
  console.log(`  try:     curl -H 'Authorization: Bearer ${key}' ${running.url}/credentials/check`);
  console.log(`  log:     curl ${running.url}/_sandbox/submissions`);
  console.log(`  mail:    curl ${running.url}/deliver/_sandbox/messages`);
  const stop = () => {
    running.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

const isMain =
  (import.meta as ImportMeta & { main?: boolean }).main === true ||
  (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href);
if (isMain) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
