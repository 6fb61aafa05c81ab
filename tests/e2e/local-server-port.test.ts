/**
 * `npm start` on a port that is taken, or with a PORT that is no port: it says so, naming the
 * variable to set, and exits before it touches the data folder or the database (not a stack trace
 * after the migrations).
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, spawnDeno } from "../../devkit/deno.ts";

let parent: string;
let taken: Server;
let takenPort: number;

beforeAll(async () => {
  parent = await mkdtemp(join(tmpdir(), "einv-port-"));
  takenPort = await freePort();
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(takenPort, "127.0.0.1", resolve));
});
afterAll(async () => {
  await new Promise((resolve) => taken?.close(resolve));
  await rm(parent, { recursive: true, force: true });
});

/** Runs the local server to its exit; what it printed and its exit code. */
async function start(
  port: number | string,
): Promise<{ code: number | null; output: string; dataDir: string }> {
  const dataDir = join(parent, crypto.randomUUID());
  // a database nobody can reach: the server must stop before it tries
  const child = spawnDeno(
    "scripts/local/serve.ts",
    { EINV_DATA_DIR: dataDir, DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none" },
    port as number,
  );
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, output, dataDir };
}

describe("npm start", () => {
  it("on a port in use says which variable to set, and exits before the database setup", async () => {
    const { code, output, dataDir } = await start(takenPort);
    expect(code).toBe(1);
    expect(output.trim()).toBe(
      `port ${takenPort} on 127.0.0.1 is already in use (another npm start?): stop it, or set PORT to a free port, e.g. PORT=${takenPort + 1} npm start`,
    );
    expect(existsSync(dataDir)).toBe(false);
  });

  it("with a PORT that is no port says so", async () => {
    const { code, output } = await start("http");
    expect(code).toBe(1);
    expect(output.trim()).toBe("PORT must be a port number from 1 to 65535, not http");
  });
});
