/**
 * Address pinning on the runtime the function deploys to: under Deno, the composition root picks
 * pinned connections (`Deno.connect` to the checked address, then `Deno.startTls` with the URL's
 * name), a request reaches a server known only by address while keeping its name for TLS and Host,
 * and a certificate for another name is refused. (Deno's own `createHttpClient` "tcp" proxy cannot do
 * this: it sends https requests as plain HTTP.)
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { PROVIDER_TLS_NAME } from "../support/provider-tls.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

it("pins provider connections under Deno: the checked address, the URL's name for TLS and Host", async () => {
  const { stdout } = await promisify(execFile)(
    `${ROOT}node_modules/.bin/deno`,
    [
      "eval",
      'const m = await import("./tests/e2e/pinned-egress-deno.ts"); console.log(JSON.stringify(await m.pinnedEgressUnderDeno()));',
    ],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DENO_NO_UPDATE_CHECK: "1" },
    },
  );
  const results = JSON.parse(stdout);
  expect(results).toMatchObject({
    resolves: true,
    connects: true,
    echo: {
      status: 200,
      body: {
        path: "/v1/echo?x=1",
        host: `${PROVIDER_TLS_NAME}:${results.port}`,
        authorization: "Bearer sk_sandbox_deno",
        body: '{"hello":"deno"}',
      },
    },
    // our sentence, and the provider's own words beside it (issue 34)
    check: {
      ok: true,
      message: "The provider accepted the API key.",
      providerMessage: "accepted over a pinned connection",
    },
    composedPins: true,
  });
  expect(results.otherName).toMatch(/certificate not valid for name "other\.example\.test"/);
}, 60_000);
