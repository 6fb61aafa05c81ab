/**
 * The client as a package, as a web app gets it: `npm pack` in client/ (its prepack builds dist/
 * with tsc) makes a tarball; a folder laid out like a Vite + TypeScript app installs it with npm,
 * offline, next to the real supabase-js; there `tsc --noEmit` under create-vite's strict settings
 * (client/tsconfig.json's) accepts a correct use of the client and of supabase-js typed with the
 * package's `Database` (docs/creating-invoices.md's example among them), and refuses each of the mistakes the types exist to catch; and Node runs the
 * built module through the package's `exports`.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));
const clientDir = join(root, "client");
const tsc = join(root, "node_modules/typescript/bin/tsc");

let workDir = "";
let app = "";
let packed: { filename: string; files: { path: string }[] };

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "einvoicing-client-"));
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", workDir], { cwd: clientDir });
  // npm prints the prepack build's output before the JSON
  packed = JSON.parse(stdout.slice(stdout.indexOf("[")))[0];

  app = join(workDir, "web-app");
  mkdirSync(join(app, "src"), { recursive: true });
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({ name: "web-app", private: true, version: "0.0.0", type: "module" }),
  );
  // create-vite's tsconfig.app.json settings, as client/tsconfig.json copies them
  const { compilerOptions } = JSON.parse(readFileSync(join(clientDir, "tsconfig.json"), "utf8"));
  writeFileSync(join(app, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["src"] }));
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", join(workDir, packed.filename)], {
    cwd: app,
  });
  // supabase-js as the app has it: the repository's own copy, no registry needed
  symlinkSync(join(root, "node_modules/@supabase"), join(app, "node_modules/@supabase"), "dir");
}, 180_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** `tsc --noEmit` in the app with `source` as src/main.ts: its errors, by line. */
async function typeCheck(source: string): Promise<Map<number, string>> {
  writeFileSync(join(app, "src/main.ts"), source);
  const output = await run(process.execPath, [tsc, "--noEmit", "-p", app], { cwd: app }).then(
    ({ stdout }) => stdout,
    (failed: { stdout: string }) => failed.stdout,
  );
  const errors = new Map<number, string>();
  for (const [, line, message] of output.matchAll(/^src\/main\.ts\((\d+),\d+\): (error .*)$/gm)) {
    errors.set(Number(line), `${errors.get(Number(line)) ?? ""}${message}`);
  }
  if (errors.size === 0 && output.trim() !== "") throw new Error(`tsc failed elsewhere:\n${output}`);
  return errors;
}

const PREAMBLE = `import { createClient } from "@supabase/supabase-js";
import { createEinvoicingClient, type Database, type ErrorCodeOf, isEinvoicingError } from "@einvoicing/client";

const supabase = createClient<Database>("https://project.supabase.co", "sb_publishable_x");
const einvoicing = createEinvoicingClient(supabase, { retry: { attempts: 4, maxDelayMs: 5_000 } });
const org_id = crypto.randomUUID();
const invoice_id = crypto.randomUUID();
export type ReissueCode = ErrorCodeOf<"creditNotes.reissue">;
`;

describe("the client's tarball", () => {
  it("holds the built ESM and its declarations, and no source", () => {
    const files = packed.files.map((file) => file.path).sort();
    expect(files).toContain("package.json");
    expect(files).toEqual(
      expect.arrayContaining(["dist/index.js", "dist/index.d.ts", "dist/route-errors.d.ts"]),
    );
    expect(
      files.filter((path) => path !== "package.json" && !/^dist\/[\w-]+\.(js|d\.ts)$/.test(path)),
    ).toEqual([]);
    const manifest = JSON.parse(
      readFileSync(join(app, "node_modules/@einvoicing/client/package.json"), "utf8"),
    );
    expect(manifest).toMatchObject({ name: "@einvoicing/client", type: "module" });
    expect(manifest.dependencies ?? {}).toEqual({});
  });

  it("type-checks in a strict Vite app with the real supabase-js", async () => {
    const errors = await typeCheck(`${PREAMBLE}
const { results } = await einvoicing.transmit({ org_id, invoice_ids: [invoice_id] });
const statuses: string[] = results.map((result) => result.status);
const { data, replayed, idempotency_key, request_id } = await einvoicing.deliver(
  { org_id, invoice_id, to: "buyer@example.com" },
  { idempotencyKey: "deliver-" + invoice_id, withMeta: true },
);
const sent: [string, boolean, string, string | null] = [data.status, replayed, idempotency_key, request_id];
const { pdf, filename } = await einvoicing.downloadRepresentation({ org_id, invoice_id }, { retry: false });
try {
  await einvoicing.creditNotes.reissue({ org_id, credit_note_id: crypto.randomUUID() });
} catch (error) {
  if (!isEinvoicingError(error, "creditNotes.reissue")) throw error;
  const code: ErrorCodeOf<"creditNotes.reissue"> = error.code;
  if (code === "invalid_state" || error.code === "network_error") console.log(error.idempotency_key);
}
console.log(statuses, sent, pdf.size, filename);
const { data: draft, error: refused } = await supabase
  .from("invoices")
  .insert({ org_id, company_id: crypto.randomUUID(), number: "SETP990000402", buyer_name: "Cliente", withholdings: [{ code: "06", percent: 2.5 }] })
  .select("id, number, status, total, tax_totals")
  .single();
if (refused) throw refused;
const draftId: string = draft.id;
const draftStatus: string = draft.status;
await supabase.from("invoice_lines").insert([
  { invoice_id: draftId, org_id, position: 1, description: "Servicio", quantity: 1, unit_price: 100, taxes: [{ code: "01", percent: 19 }] },
]);
const computedTotal: number = draft.total;
console.log(draftStatus, computedTotal);
`);
    expect([...errors.values()]).toEqual([]);
  }, 60_000);

  it("type-checks the supabase-js examples of docs/creating-invoices.md as they are written", async () => {
    const doc = readFileSync(join(root, "docs/creating-invoices.md"), "utf8");
    const [first = "", ...kinds] = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
    expect(first).toContain('supabase.from("invoice_lines").insert(rows)');
    expect(kinds.length).toBeGreaterThanOrEqual(5); // each kind of draft
    // what the examples leave to the app: its project's URL and key, and the ids it works with; each
    // kind's example runs after the first, with its `supabase`, in a function of its own
    const declared = `declare const SUPABASE_URL: string, SUPABASE_PUBLISHABLE_KEY: string;
declare const org_id: string, company_id: string, draft_id: string;
`;
    const program = [first, ...kinds.map((kind, i) => `export async function kind${i}() {\n${kind}}\n`)].join(
      "\n",
    );
    const errors = await typeCheck(`${program}${declared}`);
    expect([...errors.values()]).toEqual([]);
  }, 60_000);

  it("type-checks every operation's TypeScript example in docs/openapi.json (what /docs shows)", async () => {
    const document = JSON.parse(readFileSync(join(root, "docs/openapi.json"), "utf8"));
    const blocks = Object.entries(document.paths as Record<string, { post: { description: string } }>).map(
      ([path, item]) => {
        const code = /```ts\n([\s\S]*?)```/.exec(item.post.description)?.[1];
        if (!code) throw new Error(`${path}: no TypeScript example in its description`);
        return `{\n${code}void answer;\n}`;
      },
    );
    expect(blocks).toHaveLength(19);
    // the page says `einvoicing = createEinvoicingClient(supabase)`, and nothing else is in scope
    const preamble = `import { createClient } from "@supabase/supabase-js";
import { createEinvoicingClient, type Database } from "@einvoicing/client";

const supabase = createClient<Database>("https://project.supabase.co", "sb_publishable_x");
const einvoicing = createEinvoicingClient(supabase);
`;
    expect([...(await typeCheck(`${preamble}${blocks.join("\n")}\n`)).values()]).toEqual([]);
  }, 60_000);

  it("refuses a misspelt field, method or route, a code the route never answers, and meta not asked for", async () => {
    const mistakes: [string, RegExp][] = [
      [
        "await einvoicing.transmit({ org_id, invoice_ids: [invoice_id], reisue: true });",
        /TS2561: .*'reisue' does not exist .* Did you mean to write 'reissue'\?/,
      ],
      [
        "await einvoicing.creditNotes.reisue({ org_id, credit_note_id: invoice_id });",
        /TS2551: Property 'reisue' does not exist .* Did you mean 'reissue'\?/,
      ],
      [
        'export const wrongRoute = (error: unknown) => isEinvoicingError(error, "creditNote.reissue");',
        /TS2345: Argument of type '"creditNote.reissue"' is not assignable/,
      ],
      [
        'export const neverAnswered = (e: unknown) => isEinvoicingError(e, "transmit") && e.code === "not_found";',
        /TS2367: .*no overlap/,
      ],
      [
        "const { replayed } = await einvoicing.refresh({ org_id, invoice_id }); console.log(replayed);",
        /TS2339: Property 'replayed' does not exist/,
      ],
      // the tables' types (client/database.ts): a column the table lacks, a value of the wrong type,
      // a required column left out, a table that does not exist
      [
        'await supabase.from("invoices").insert({ org_id, company_id: org_id, number: "1", buyer_nmae: "x" });',
        // supabase-js refuses excess properties by typing them `never`
        /TS2322: Type 'string' is not assignable to type 'never'/,
      ],
      [
        'await supabase.from("invoice_lines").insert({ invoice_id, org_id, position: 1, description: "d", quantity: "1", unit_price: 1 });',
        /TS2322: Type 'string' is not assignable to type 'number'/,
      ],
      [
        'await supabase.from("invoices").insert({ org_id, company_id: org_id });',
        /TS2345: Argument of type '\{ org_id: .*; company_id: .*; \}' is not assignable/,
      ],
      ['await supabase.from("invoice").insert({ org_id });', /TS2769: No overload matches this call/],
    ];
    const errors = await typeCheck(`${PREAMBLE}${mistakes.map(([line]) => line).join("\n")}\n`);
    const first = PREAMBLE.split("\n").length;
    expect(
      Object.fromEntries(mistakes.map(([line], i) => [line, errors.get(first + i) ?? "accepted"])),
    ).toEqual(
      Object.fromEntries(mistakes.map(([line, expected]) => [line, expect.stringMatching(expected)])),
    );
    // and nothing else is refused
    expect([...errors.keys()]).toEqual(mistakes.map((_, i) => first + i));
  }, 60_000);

  it("runs in Node through the package's exports, sending an Idempotency-Key it made", async () => {
    writeFileSync(
      join(app, "src/run.mjs"),
      `import { createEinvoicingClient, EinvoicingError } from "@einvoicing/client";
const sent = [];
const supabase = {
  functions: {
    invoke: async (name, options) => {
      sent.push({ name, key: options.headers["Idempotency-Key"] });
      return { data: { results: [] }, error: null };
    },
  },
  storage: { from: () => ({ download: async () => ({ data: null, error: null }) }) },
};
const answer = await createEinvoicingClient(supabase).transmit({ org_id: "o", invoice_ids: [] });
console.log(JSON.stringify({ answer, sent, errorClass: EinvoicingError.name }));
`,
    );
    const { stdout } = await run(process.execPath, [join(app, "src/run.mjs")], { cwd: app });
    expect(JSON.parse(stdout)).toEqual({
      answer: { results: [] },
      sent: [{ name: "einvoicing/transmit", key: expect.stringMatching(/^[0-9a-f-]{36}$/) }],
      errorClass: "EinvoicingError",
    });
  }, 30_000);
});
