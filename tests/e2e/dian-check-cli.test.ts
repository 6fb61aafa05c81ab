/**
 * `npm run dian:check` where there is nothing to check: no local server's data folder (the default
 * `.data`, or `EINV_DATA_DIR`), or a `local.json` it cannot use. It says so in a sentence and exits 1,
 * with no stack trace. (What it checks in requests it finds: tests/e2e/local-server-dian.test.ts.)
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/** `npm run -s dian:check` with EINV_DATA_DIR at a new folder holding `local` as local.json, if given. */
async function dianCheck(local?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), "einv-dian-check-"));
  folders.push(dataDir);
  if (local !== undefined) await writeFile(join(dataDir, "local.json"), local);
  return promisify(execFile)("npm", ["run", "-s", "dian:check"], {
    cwd: root,
    env: { ...process.env, EINV_DATA_DIR: dataDir, DENO_NO_UPDATE_CHECK: "1" },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (failed: { code: number; stdout: string; stderr: string }) => failed,
  );
}

const noStackTrace = (stderr: string) => {
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(stderr).not.toMatch(/error: Uncaught|NotFound|TypeError/);
};

describe("npm run dian:check", () => {
  it("says to start the local server when there is no local.json, without a stack trace", async () => {
    const { code, stdout, stderr } = await dianCheck();
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(
      /local\.json not found: start the local server first \(npm start\) and transmit the DIAN demo company's invoices, or set EINV_DATA_DIR to its data folder\n$/,
    );
    noStackTrace(stderr);
  }, 60_000);

  it("says what is wrong with a local.json it cannot use, without a stack trace", async () => {
    const garbled = await dianCheck("{ not json");
    expect(garbled.code).toBe(1);
    expect(garbled.stderr).toMatch(/local\.json is not JSON: stop the local server, delete the file/);
    noStackTrace(garbled.stderr);

    const older = await dianCheck(JSON.stringify({ base_url: "http://127.0.0.1:54321/functions" }));
    expect(older.code).toBe(1);
    expect(older.stderr).toMatch(/local\.json names no DIAN demo company .*: restart npm start\n$/);
    noStackTrace(older.stderr);
  }, 60_000);

  it("says there is nothing to check yet when the stand-in has received no request", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "einv-dian-check-"));
    folders.push(dataDir);
    const { code, stdout } = await dianCheck(
      JSON.stringify({
        dian: { ca_pem: "-----BEGIN CERTIFICATE-----", requests_dir: join(dataDir, "dian") },
      }),
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^no document requests in .*dian yet: transmit the DIAN demo company's invoices first\n$/,
    );
  }, 60_000);
});
