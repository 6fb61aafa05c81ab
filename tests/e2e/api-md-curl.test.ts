/**
 * docs/api.md's curl blocks run as written, with bash and curl, against a local server: after the
 * README's quick-start transmit, re-check, render, download the PDF from storage with the user's
 * token (the curl line web developers asked for) and e-mail it; and the tables at /rest/v1, listed
 * with a count and written to.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, inject, it } from "vitest";
import { curlUser } from "../../scripts/local/local-json.ts";
import { useLocalServer } from "../support/local-server.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const target = inject("database");
const server = useLocalServer(target);
const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/** The first ```sh block after the heading `heading` of docs/api.md. */
async function blockAfter(heading: string): Promise<string> {
  const doc = await readFile(join(root, "docs/api.md"), "utf8");
  const section = doc.slice(doc.indexOf(heading));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error(`docs/api.md has no curl block under '${heading}'`);
  return block;
}
const firstBlock = () => blockAfter("## Every route against the local server");

/** The block run as written with bash in a folder of its own; what it printed. */
async function runBlock(block: string, dataDir: string): Promise<{ stdout: string; cwd: string }> {
  const cwd = await mkdtemp(join(tmpdir(), "einv-api-md-"));
  folders.push(cwd);
  const { stdout } = await promisify(execFile)("bash", ["-euo", "pipefail", "-c", block], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", EINV_DATA_DIR: dataDir },
  });
  return { stdout, cwd };
}

describe.skipIf(target.kind !== "postgres")("docs/api.md's curl lines", () => {
  it("re-check, render, download the PDF from storage and e-mail the invoice the quick start sent", async () => {
    const { run: local, dataDir } = server.get();
    // the README's quick-start line: the operador transmits the first pending invoices
    const user = curlUser(local);
    const first = local.invoices.find((i) => i.status === "pendiente");
    const sent = await fetch(`${local.base_url}/v1/einvoicing/transmit`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${user?.access_token}`,
        apikey: local.apikey,
        "content-type": "application/json",
      },
      body: JSON.stringify({ org_id: first?.org_id, invoice_ids: [first?.id] }),
    });
    expect(sent.status).toBe(200);

    const block = await firstBlock();
    expect(block).toContain("/storage/v1/object/service-documentos/");
    const { stdout, cwd } = await runBlock(block, dataDir);
    // the three answers the block prints, as its comments say (curl adds no newline between them)
    const answers = stdout
      .trim()
      .split(/(?<=\})(?=\{)/)
      .map((text) => JSON.parse(text));
    expect(answers).toMatchObject([
      { invoice_id: first?.id, status: "transmitida", code: "accepted" },
      { path: expect.stringMatching(/^[0-9a-f-]{36}\/invoices\/[0-9a-f-]{36}\/factura-.*\.pdf$/) },
      { invoice_id: first?.id, status: "enviada", code: "sent" },
    ]);
    const pdf = await readFile(join(cwd, "factura.pdf"));
    expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(pdf.length).toBeGreaterThan(5_000);
  }, 120_000);

  it("credit notes, a reissue, then a debit note of interest on the invoice the quick start sent, rendered", async () => {
    const { dataDir } = server.get();
    const opening = await firstBlock();
    const head = opening.slice(0, opening.indexOf("curl "));
    const block = await blockAfter("Then correct that invoice with credit notes");
    expect(block).toContain("$B/debit-notes ");
    // the first test transmitted the invoice; should it run alone, transmit it here
    await runBlock(`${head}curl -sS -X POST $B/transmit "\${H[@]}" -d "$BODY" >/dev/null\n`, dataDir);
    const { stdout } = await runBlock(`${head}${block}`, dataDir);
    const answers = stdout
      .trim()
      .split(/(?<=\})\s*(?=\{)/)
      .map((text) => JSON.parse(text));
    expect(answers).toMatchObject([
      { status: "emitida", code: "accepted" },
      { status: "emitida", code: "accepted" },
      { status: "error", code: "unknown_to_provider" },
      { status: "emitida", code: "accepted" },
      {
        path: expect.stringMatching(/\/credit-notes\/[0-9a-f-]{36}\/nota-credito-NC2-.*\.pdf$/),
        stamped: true,
      },
      {
        debit_note_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        status: "emitida",
        code: "accepted",
        authority_message: expect.stringMatching(/^La nota débito electrónica ND\d+ ha sido autorizada\.$/),
      },
      {
        path: expect.stringMatching(/\/debit-notes\/[0-9a-f-]{36}\/nota-debito-ND\d+-.*\.pdf$/),
        stamped: true,
      },
    ]);
  }, 180_000);

  it("list the rejected invoices with a count and write a draft through /rest/v1, as PostgREST answers", async () => {
    const { run: local, dataDir } = server.get();
    // the block takes L and TOKEN from the first block's opening lines
    const first = await firstBlock();
    const opening = first.slice(0, first.indexOf("\n", first.indexOf("TOKEN=")) + 1);
    const { stdout } = await runBlock(`${opening}${await blockAfter("## The tables: `/rest/v1`")}`, dataDir);
    const [head = "", rest = ""] = stdout.split(/\r\n\r\n/);
    const rejected = local.invoices.filter(
      (i) => i.status === "error" && i.org_id === curlUser(local)?.org_id,
    ).length;
    expect(head).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(head).toMatch(new RegExp(`^content-range: 0-${rejected - 1}/${rejected}\r?$`, "im"));
    // the list, then the draft read back, one after the other (curl adds no newline)
    const [list, draft] = rest
      .trim()
      .split(/(?<=\])(?=\[)/)
      .map((text) => JSON.parse(text));
    expect(list).toHaveLength(rejected);
    expect(list[0]).toMatchObject({
      last_code: "rejected",
      authority_rules: [expect.objectContaining({ rule: expect.any(String) })],
      invoice_lines: expect.arrayContaining([expect.objectContaining({ position: 1 })]),
    });
    expect(draft).toEqual([{ id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: "pendiente" }]);
  }, 120_000);
});
