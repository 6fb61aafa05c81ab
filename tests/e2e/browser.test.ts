/**
 * The local server as a web developer's browser meets it, in Debian's headless Chromium driven by
 * puppeteer-core: the API reference at /docs renders every operation with no console error and no
 * request leaving the machine, and a page of another origin uses supabase-js and the typed client to
 * transmit an invoice, keep its PDF and download it — CORS included, for functions and storage.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { API_ROUTES } from "../../devkit/contract.ts";
import { freePort } from "../../devkit/deno.ts";
import { useLocalServer } from "../support/local-server.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const target = inject("database");
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && process.env.CI) {
  throw new Error(`Chromium not found at ${CHROMIUM}: CI installs Debian's chromium (see .ci/run)`);
}

const server = useLocalServer(target);
let browser: Browser | undefined;
let pageServer: Server | undefined;
let pageOrigin = "";

/** A page of another origin: the supabase-js browser build and the typed client, as a web app ships them. */
function servePage(port: number): Promise<Server> {
  const root = new URL("../../", import.meta.url);
  const supabaseJs = readFileSync(
    new URL("node_modules/@supabase/supabase-js/dist/umd/supabase.js", root),
    "utf8",
  );
  // each module of the client as its build emits it (./index.js imports ./invoke.js, …)
  const clientModules = readdirSync(new URL("client/", root))
    .filter((name) => name.endsWith(".ts"))
    .map((name): [string, [string, string]] => [
      `/client/${name.replace(/\.ts$/, ".js")}`,
      [
        "text/javascript",
        ts.transpileModule(readFileSync(new URL(`client/${name}`, root), "utf8"), {
          compilerOptions: {
            module: ts.ModuleKind.ESNext,
            target: ts.ScriptTarget.ES2022,
            rewriteRelativeImportExtensions: true,
          },
        }).outputText,
      ],
    ]);
  const files: Record<string, [string, string]> = {
    "/": [
      "text/html",
      '<!doctype html><html><head><link rel="icon" href="data:,"></head><body>web app</body></html>',
    ],
    "/supabase.js": ["text/javascript", supabaseJs],
    ...Object.fromEntries(clientModules),
  };
  const http = createServer((request, response) => {
    const file = files[request.url ?? ""];
    response.writeHead(file ? 200 : 404, { "content-type": file?.[0] ?? "text/plain" });
    response.end(file?.[1] ?? "not found");
  });
  return new Promise((resolve) => http.listen(port, "127.0.0.1", () => resolve(http)));
}

/** A new tab that records console errors, page errors, failed requests and every URL it asks for. */
async function watchedPage(): Promise<{ page: Page; problems: string[]; urls: string[] }> {
  if (!browser) throw new Error("no browser");
  const page = await browser.newPage();
  const problems: string[] = [];
  const urls: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error}`));
  page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()}`));
  page.on("request", (request) => urls.push(request.url()));
  return { page, problems, urls };
}

beforeAll(async () => {
  if (target.kind !== "postgres" || !hasChromium) return;
  const port = await freePort();
  pageServer = await servePage(port);
  pageOrigin = `http://localhost:${port}`;
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: 90_000,
    // no sandbox as root; no background connections this machine's closed network would refuse
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (pageServer ? pageServer.close(resolve) : resolve(undefined)));
});

describe.skipIf(target.kind !== "postgres" || !hasChromium)("in a real browser (headless Chromium)", () => {
  it("renders the API reference at /docs with every operation and the webhook, no console error, nothing fetched from outside", async () => {
    const { page, problems, urls } = await watchedPage();
    await page.goto(`${server.get().baseUrl}/docs`, { waitUntil: "networkidle0" });
    await page.waitForFunction(() => document.querySelectorAll(".opblock").length >= 10, { timeout: 20_000 });
    const operations = await page.$$eval(".opblock", (blocks) =>
      blocks.map((block) => {
        const method = block.querySelector(".opblock-summary-method")?.textContent?.trim();
        const path = block.querySelector(".opblock-summary-path")?.getAttribute("data-path");
        return `${method} ${path}`;
      }),
    );
    // the routes, and the message the service POSTs to webhook endpoints (OpenAPI `webhooks`)
    expect(operations.sort()).toEqual([...API_ROUTES.map((path) => `POST ${path}`), "POST documentStatus"]);
    expect(problems).toEqual([]);
    expect(
      urls.filter((url) => !url.startsWith(`${server.get().baseUrl}/`) && !url.startsWith("data:")),
    ).toEqual([]);
    await page.close();
  }, 60_000);

  it("fills in Authorize with the demo operador's token and the apikey, so Try it out works; describes every operation with a TypeScript example; says Webhooks once", async () => {
    const { page, problems } = await watchedPage();
    await page.goto(`${server.get().baseUrl}/docs`, { waitUntil: "networkidle0" });
    await page.waitForFunction(() => document.querySelectorAll(".opblock").length >= 10, { timeout: 20_000 });
    const local = server.get().run;
    const operador = local.users.find((u) => u.role === "operador");
    // filled in once the page has fetched /docs/authorization.json
    await page.waitForFunction(
      () =>
        (
          window as unknown as {
            ui: { authSelectors: { authorized(): { toJS(): Record<string, unknown> } } };
          }
        ).ui.authSelectors
          .authorized()
          .toJS().bearerAuth !== undefined,
      { timeout: 20_000 },
    );
    const authorized = await page.evaluate(() => {
      const ui = (
        window as unknown as {
          ui: { authSelectors: { authorized(): { toJS(): Record<string, { value: string }> } } };
        }
      ).ui;
      const all = ui.authSelectors.authorized().toJS();
      return { apikey: all.apikey?.value, bearer: all.bearerAuth?.value };
    });
    expect(authorized).toEqual({ apikey: local.apikey, bearer: operador?.access_token });

    // "Webhooks" heads the messages sent to endpoints; the routes that manage endpoints are another tag
    const headings = await page.$$eval("h1, h2, h3, h4, .opblock-tag", (elements) =>
      elements.map((element) => element.textContent?.trim().toLowerCase() ?? ""),
    );
    expect(headings.filter((text) => text === "webhooks")).toHaveLength(1);

    const document_ = JSON.parse(await (await fetch(`${server.get().baseUrl}/docs/openapi.json`)).text());
    for (const path of API_ROUTES) {
      const block = `.opblock[id$="-${document_.paths[path].post.operationId}"]`;
      await (await page.$(`${block} .opblock-summary-control, ${block} .opblock-summary`))?.click();
      await page.waitForSelector(`${block} .opblock-description-wrapper`, { timeout: 10_000 });
      const description = await page.$eval(
        `${block} .opblock-description-wrapper`,
        (e) => e.textContent ?? "",
      );
      expect(description.length, path).toBeGreaterThan(200);
      expect(description, path).toMatch(/const answer = await einvoicing\.[A-Za-z.]+\(\{/);
    }

    // Try it out on /transmit, as a newcomer would: the prefilled token and apikey are accepted
    const transmit = `.opblock[id$="-${document_.paths["/transmit"].post.operationId}"]`;
    await (await page.$(`${transmit} .try-out__btn`))?.click();
    await (await page.waitForSelector(`${transmit} .execute`, { timeout: 10_000 }))?.click();
    await page.waitForSelector(`${transmit} .live-responses-table tbody .response-col_status`, {
      timeout: 20_000,
    });
    const status = await page.$eval(`${transmit} .live-responses-table tbody .response-col_status`, (e) =>
      e.textContent?.trim(),
    );
    expect(status).toMatch(/^200/);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it("shows each operation's example request and answer, and under each error status that status's own codes", async () => {
    const { page, problems } = await watchedPage();
    await page.goto(`${server.get().baseUrl}/docs`, { waitUntil: "networkidle0" });
    await page.waitForFunction(() => document.querySelectorAll(".opblock").length >= 10, { timeout: 20_000 });
    const document_ = JSON.parse(await (await fetch(`${server.get().baseUrl}/docs/openapi.json`)).text());
    for (const path of API_ROUTES) {
      // Swagger UI's id for an operation block: operations-<tag>-<operationId>
      const block = `.opblock[id$="-${document_.paths[path].post.operationId}"]`;
      const summary = await page.$(`${block} .opblock-summary-control, ${block} .opblock-summary`);
      if (!summary) throw new Error(`no operation block for ${path}`);
      await summary.click();
      await page.waitForSelector(`${block} .responses-wrapper tr.response`, { timeout: 10_000 });
      const shown = await page.$eval(block, (element) => ({
        request: element.querySelector(".opblock-section-request-body")?.textContent ?? "",
        responses: Array.from(element.querySelectorAll("tr.response")).map((row) => ({
          status: row.getAttribute("data-code") ?? "",
          example: row.querySelector(".example, .microlight, pre")?.textContent ?? "",
        })),
      }));
      const operation = document_.paths[path].post;
      // `example`, or the first of named `examples` (what Swagger UI shows first)
      const first = (content: { example?: unknown; examples?: Record<string, { value: unknown }> }) =>
        content.example ?? Object.values(content.examples ?? {})[0]?.value;
      const requestExample = first(operation.requestBody.content["application/json"]) as { org_id: string };
      expect(shown.request, path).toContain(requestExample.org_id);
      const ok = shown.responses.find((row) => row.status === "200");
      expect(ok?.example, `${path} 200`).toBe(
        JSON.stringify(first(operation.responses["200"].content["application/json"]), null, 2),
      );
      for (const row of shown.responses.filter((r) => /^[45]/.test(r.status))) {
        const ref: string = operation.responses[row.status].$ref;
        const codes: string[] = Object.keys(
          document_.components.responses[ref.split("/").pop() as string].content["application/json"].examples,
        );
        expect(
          codes.some((code) => row.example.includes(`"${code}"`)),
          `${path} ${row.status}: ${row.example.slice(0, 120)}`,
        ).toBe(true);
        if (row.status !== "400") expect(row.example, `${path} ${row.status}`).not.toContain("invalid_json");
      }
    }
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it("lets a page of another origin transmit, keep the PDF and download it with supabase-js and the client", async () => {
    const { page, problems } = await watchedPage();
    await page.goto(`${pageOrigin}/`);
    const local = server.get().run;
    const operador = local.users.find((u) => u.role === "operador");
    if (!operador) throw new Error("no demo operador");
    const invoice = local.invoices.find((i) => i.org_id === operador.org_id && i.status === "pendiente");
    if (!invoice) throw new Error("no pending demo invoice");
    await page.addScriptTag({ url: "/supabase.js" });
    // as a web app's bundle would: the client module, here exposed for the test to drive
    await page.addScriptTag({
      type: "module",
      content:
        'import { createEinvoicingClient } from "/client/index.js"; window.createEinvoicingClient = createEinvoicingClient;',
    });
    await page.waitForFunction(() => "createEinvoicingClient" in window);

    const outcome = await page.evaluate(
      async (config) => {
        type Browserish = {
          supabase: { createClient(url: string, key: string, options: object): unknown };
          createEinvoicingClient(supabase: unknown): typeof import("../../client/index.ts") extends {
            createEinvoicingClient(...args: never[]): infer C;
          }
            ? C
            : never;
        };
        const { supabase: supabaseJs, createEinvoicingClient } = window as unknown as Browserish;
        const supabase = supabaseJs.createClient(config.supabaseUrl, config.apikey, {
          accessToken: async () => config.token,
        });
        const einvoicing = createEinvoicingClient(supabase);
        const transmitted = await einvoicing.transmit({
          org_id: config.orgId,
          invoice_ids: [config.invoiceId],
        });
        // the same call twice under one key: the second answer is the kept one, and says so across origins
        const once = { idempotencyKey: crypto.randomUUID(), withMeta: true } as const;
        const input = { org_id: config.orgId, invoice_id: config.invoiceId };
        const { data: representation, replayed: firstReplayed } = await einvoicing.representation(
          input,
          once,
        );
        const { replayed: secondReplayed } = await einvoicing.representation(input, once);
        const { pdf } = await einvoicing.downloadRepresentation({
          org_id: config.orgId,
          invoice_id: config.invoiceId,
        });
        const head = new TextDecoder().decode(new Uint8Array(await pdf.arrayBuffer()).slice(0, 5));
        const refused = await einvoicing.refresh({ org_id: config.orgId, invoice_id: "not-a-uuid" }).then(
          () => null,
          (error: { code: string; status: number; request_id: string | null }) => error,
        );
        // a method the functions do not take: the answer, and its Allow header, are readable cross-origin
        const get = await fetch(`${config.supabaseUrl}/functions/v1/einvoicing/transmit`);
        return {
          origin: location.origin,
          statuses: transmitted.results.map((r: { status: string }) => r.status),
          stamped: representation.stamped,
          replayed: [firstReplayed, secondReplayed],
          pdf: { head, size: pdf.size, type: pdf.type },
          refused: refused && { code: refused.code, status: refused.status, request_id: refused.request_id },
          get: {
            status: get.status,
            allow: get.headers.get("allow"),
            request_id: get.headers.get("x-request-id"),
          },
        };
      },
      {
        supabaseUrl: local.base_url.replace(/\/functions$/, ""),
        apikey: local.apikey,
        token: operador.access_token,
        orgId: operador.org_id,
        invoiceId: invoice.id,
      },
    );

    expect(outcome.origin).not.toBe(new URL(server.get().baseUrl).origin);
    expect(outcome).toMatchObject({
      statuses: ["transmitida"],
      stamped: true,
      replayed: [false, true],
      pdf: { head: "%PDF-", type: "application/pdf" },
      refused: { code: "validation_failed", status: 400, request_id: expect.any(String) },
      get: { status: 405, allow: "POST", request_id: expect.any(String) },
    });
    expect(outcome.pdf.size).toBeGreaterThan(1000);
    // Chromium logs the two refusals asked for above (400, 405) as failed resources; nothing else may fail
    expect(problems.filter((problem) => !/status of (400|405)\b/.test(problem))).toEqual([]);
    expect(problems).toHaveLength(2);
    await page.close();
  }, 60_000);
});
