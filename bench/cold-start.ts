/**
 * Cold start (DESIGN §7): time from spawning `deno run` to the first answered request, for the
 * `einvoicing` entry and for a bare Hono app, each started fresh several times (median). The first
 * request is a CORS preflight, which touches no database: what is measured is loading and wiring.
 */
import { freePort, spawnDeno } from "../tests/support/deno.ts";

async function startOnce(entry: string, env: Record<string, string>): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawnDeno(entry, env, port, "ignore");
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}`);
      try {
        await fetch(`http://127.0.0.1:${port}/einvoicing/transmit`, {
          method: "OPTIONS",
          headers: { origin: "http://bench.test", "access-control-request-method": "POST" },
        });
        return performance.now() - started;
      } catch {
        if (performance.now() - started > 30_000) throw new Error(`${entry} did not answer within 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
  } finally {
    child.kill("SIGKILL");
  }
}

export async function measureColdStart(
  functionEnv: Record<string, string>,
  runs = 5,
): Promise<{ functionMs: number; bareMs: number }> {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  // one untimed start each, so both read the modules from a warm disk cache
  await startOnce("bench/bare-hono.ts", {});
  await startOnce("functions/einvoicing/index.ts", functionEnv);
  const bare: number[] = [];
  const fn: number[] = [];
  for (let i = 0; i < runs; i++) {
    bare.push(await startOnce("bench/bare-hono.ts", {}));
    fn.push(await startOnce("functions/einvoicing/index.ts", functionEnv));
  }
  return { functionMs: median(fn), bareMs: median(bare) };
}
