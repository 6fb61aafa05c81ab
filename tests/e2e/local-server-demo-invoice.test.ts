/**
 * `npm run demo:invoice` against a running local server: it prints the id of a new pending invoice
 * with lines in the demo organization, created as the quick start's operador under the same grants
 * and RLS as a web app's insert, and that id transmits with the quick start's curl request.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import { curlUser } from "../../scripts/local/local-json.ts";
import { useLocalServer } from "../support/local-server.ts";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));
const target = inject("database");
const server = useLocalServer(target);

/** `npm run -s demo:invoice` for the server whose data folder is `dataDir`. */
const demoInvoice = (dataDir: string) =>
  run("npm", ["run", "-s", "demo:invoice"], {
    cwd: root,
    env: { ...process.env, EINV_DATA_DIR: dataDir, DENO_NO_UPDATE_CHECK: "1" },
  });

/** The quick start's curl request, for these invoices. */
async function transmit(invoiceIds: string[]) {
  const { run: local } = server.get();
  const user = curlUser(local);
  const response = await fetch(`${local.base_url}/v1/einvoicing/transmit`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${user?.access_token}`,
      apikey: local.apikey,
      "content-type": "application/json",
    },
    body: JSON.stringify({ org_id: user?.org_id, invoice_ids: invoiceIds }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { results: { invoice_id: string; status: string }[] }).results;
}

const createAs = (role: string, orgId: string) => {
  const { run: local, baseUrl } = server.get();
  const user = local.users.find((u) => u.role === role && u.org_id === local.orgs[0]?.id);
  return fetch(`${baseUrl}/local/v1/demo-invoice`, {
    method: "POST",
    headers: { authorization: `Bearer ${user?.access_token}`, "content-type": "application/json" },
    body: JSON.stringify({ org_id: orgId }),
  });
};

describe.skipIf(target.kind !== "postgres")("npm run demo:invoice", () => {
  it("prints the id of a new pending invoice with lines, which the quick start's curl transmits", async () => {
    const { dataDir, run: local } = server.get();
    const first = await demoInvoice(dataDir);
    const second = await demoInvoice(dataDir);
    const ids = [first.stdout.trim(), second.stdout.trim()];
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set([...ids, ...local.invoices.map((i) => i.id)]).size).toBe(local.invoices.length + 2);
    // the next consecutives of the demo company, after the seeded SETP990000401
    expect(first.stderr).toContain("created invoice SETP990000402 (pendiente, 2 lines");
    expect(second.stderr).toContain("created invoice SETP990000403 (pendiente, 2 lines");
    expect(second.stderr).toContain(`"invoice_ids":["${ids[1]}"]`);

    // the service's pre-send checks pass (lines present, arithmetic and totals right), and it is sent
    expect(await transmit(ids)).toEqual(
      ids.map((invoice_id) => expect.objectContaining({ invoice_id, status: "transmitida" })),
    );
  }, 120_000);

  it("is refused by the database's RLS for a lector, and finds no company of another organization", async () => {
    const { run: local } = server.get();
    const [demo, other] = local.orgs.map((o) => o.id) as [string, string];
    const lector = await createAs("lector", demo);
    expect(lector.status).toBe(403);
    expect(((await lector.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    const stranger = await createAs("operador", other);
    expect(stranger.status).toBe(404);
    const admin = await createAs("admin", demo);
    expect(admin.status).toBe(201);
  }, 60_000);

  it("refuses a request without a token, with a body other than {org_id}, or over 1 KiB", async () => {
    const { run: local, baseUrl } = server.get();
    const token = curlUser(local)?.access_token ?? "";
    const send = (body: string, authorization = `Bearer ${token}`) =>
      fetch(`${baseUrl}/local/v1/demo-invoice`, { method: "POST", headers: { authorization }, body }).then(
        async (response) => [
          response.status,
          ((await response.json()) as { error: { code: string } }).error.code,
        ],
      );
    const org_id = local.orgs[0]?.id;
    expect(await send(JSON.stringify({ org_id }), "Bearer not-a-token")).toEqual([401, "unauthenticated"]);
    expect(await send("{")).toEqual([400, "invalid_json"]);
    expect(await send(JSON.stringify({ org_id: "demo" }))).toEqual([400, "validation_failed"]);
    expect(await send(JSON.stringify({ org_id, number: "1" }))).toEqual([400, "validation_failed"]);
    expect(await send(JSON.stringify({ org_id, pad: "x".repeat(2000) }))).toEqual([413, "payload_too_large"]);
  }, 60_000);

  it("says to start the server when there is no local.json", async () => {
    const empty = await mkdtemp(join(tmpdir(), "einv-no-server-"));
    try {
      const failed = await demoInvoice(empty).then(
        () => ({ code: 0, stderr: "" }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain("start the local server first (npm start)");
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  }, 60_000);
});
