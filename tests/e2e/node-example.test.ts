/**
 * docs/api.md's Node script (`app.mjs`, which the README points to) runs as written against `npm
 * start`, on the Node of this run: in a folder where the built `@einvoicing/client` and the real
 * supabase-js are installed, with `--experimental-websocket` on Node 20 (as the docs say), with
 * nothing on Node 22 and later. On Node 20, without the flag, supabase-js's `createClient` throws,
 * which is why the docs say it.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { useLocalServer } from "../support/local-server.ts";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));
const target = inject("database");
const server = useLocalServer(target);
const major = Number(process.versions.node.split(".")[0]);

/** The ```js block of docs/api.md that starts with `// app.mjs`. */
function documentedScript(): string {
  const doc = readFileSync(join(root, "docs/api.md"), "utf8");
  const block = /```js\n(\/\/ app\.mjs[\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error("docs/api.md has no app.mjs block");
  return block;
}

let app = "";
beforeAll(async () => {
  app = mkdtempSync(join(tmpdir(), "einvoicing-node-example-"));
  // @einvoicing/client as its package.json exports it (dist/), built from client/ with its own tsconfig
  const client = join(app, "node_modules/@einvoicing/client");
  mkdirSync(client, { recursive: true });
  cpSync(join(root, "client/package.json"), join(client, "package.json"));
  await run(
    process.execPath,
    [
      join(root, "node_modules/typescript/bin/tsc"),
      "-p",
      join(root, "client/tsconfig.build.json"),
      "--outDir",
      join(client, "dist"),
    ],
    { cwd: root },
  );
  symlinkSync(join(root, "node_modules/@supabase"), join(app, "node_modules/@supabase"), "dir");
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  writeFileSync(join(app, "app.mjs"), documentedScript());
}, 120_000);
afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true });
});

const node = (flags: string[]) =>
  run(process.execPath, [...flags, "app.mjs"], {
    cwd: app,
    env: { ...process.env, LOCAL_JSON: join(server.get().dataDir, "local.json"), NODE_OPTIONS: "" },
  });

describe.skipIf(target.kind !== "postgres")("docs/api.md's app.mjs", () => {
  it(`runs as the docs say on Node ${major}, and transmits a pending demo invoice`, async () => {
    const { stdout } = await node(major < 22 ? ["--experimental-websocket"] : []);
    expect(stdout.trim()).toMatch(/^SETP\d+ transmitida accepted La DIAN aceptó el documento\.$/);
  }, 60_000);

  it.skipIf(major >= 22)(
    "throws at createClient on Node 20 without the flag, as the docs warn",
    async () => {
      const failed = await node([]).then(
        () => "ran",
        (error: { stderr: string }) => error.stderr,
      );
      expect(failed).toContain("Node.js 20 detected without native WebSocket support");
    },
    60_000,
  );
});
