/**
 * The entry's front (functions/einvoicing/front.ts): a cold instance answers its first CORS
 * preflight before the app is loaded, then loads it; everything else is the app's. And what keeps
 * a cold start small: the front, the entry and the route groups import no operation, no zod.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createFront } from "../../functions/einvoicing/front.ts";

const preflight = () =>
  new Request("http://fn.test/einvoicing/transmit", {
    method: "OPTIONS",
    headers: { origin: "https://app.example", "access-control-request-method": "POST" },
  });
const post = () => new Request("http://fn.test/einvoicing/transmit", { method: "POST", body: "{}" });

function fakeApp() {
  const seen: string[] = [];
  let loads = 0;
  const load = async () => {
    loads++;
    return (request: Request) => {
      seen.push(request.method);
      return new Response(`app ${request.method}`, { status: 200 });
    };
  };
  return { seen, load, loads: () => loads };
}

describe("the einvoicing front", () => {
  it("answers preflights with the CORS policy without loading the app, until a request loads it", async () => {
    const app = fakeApp();
    const handle = createFront({ EINV_CORS_ORIGINS: "https://app.example, https://b.example" }, app.load);
    const response = await handle(preflight());
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(response.headers.get("access-control-allow-headers")).toMatch(/idempotency-key/);
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect((await handle(preflight())).status).toBe(204);
    expect(app.loads()).toBe(0);
    expect(await (await handle(post())).text()).toBe("app POST");
    // once loaded, preflights are the app's too
    expect(await (await handle(preflight())).text()).toBe("app OPTIONS");
    expect(app.loads()).toBe(1);
  });

  it("refuses an origin outside EINV_CORS_ORIGINS like the app does", async () => {
    const handle = createFront({ EINV_CORS_ORIGINS: "https://other.example" }, fakeApp().load);
    const response = await handle(preflight());
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("hands every other request to the app, loading it once", async () => {
    const app = fakeApp();
    const handle = createFront({}, app.load);
    const answers = await Promise.all([handle(post()), handle(post()), handle(preflight())]);
    expect(await Promise.all(answers.map((r) => r.text()))).toEqual(["app POST", "app POST", "app OPTIONS"]);
    expect(app.loads()).toBe(1);
  });

  it("answers 500 in the error shape when the app cannot load, and logs why without values", async () => {
    const lines: string[] = [];
    const handle = createFront(
      {},
      async () => {
        throw new Error("invalid configuration: EINV_CREDENTIALS_KEY: is required");
      },
      (line) => lines.push(line),
    );
    const response = await handle(post());
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: { code: string; request_id: string } };
    expect(body.error.code).toBe("internal_error");
    expect(response.headers.get("x-request-id")).toBe(body.error.request_id);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "{}")).toMatchObject({
      level: "error",
      error: "Error: invalid configuration: EINV_CREDENTIALS_KEY: is required",
    });
    expect((await handle(post())).status).toBe(500);
    expect(lines).toHaveLength(1);
  });
});

describe("what a cold instance loads", () => {
  const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
  const staticImports = (source: string) =>
    [...source.matchAll(/^import\s+(?!type\s)[^;]*?from\s+"([^"]+)";/gms)].map((m) => m[1]);

  it("the entry and the front import Hono, its CORS middleware and the CORS policy, nothing else", () => {
    expect(staticImports(read("functions/einvoicing/index.ts"))).toEqual(["./front.ts"]);
    expect(staticImports(read("functions/einvoicing/front.ts")).sort()).toEqual([
      "../../shared/cors.ts",
      "hono/cors",
      "hono/tiny",
    ]);
    expect(staticImports(read("shared/cors.ts"))).toEqual([]);
  });

  it.each(["invoices", "credit-notes", "integrations"])(
    "the %s group mounts its operations without importing them",
    (group) => {
      // only `import type`: each operation is a dynamic import, mounted by ../../shared/http/lazy.ts
      expect(staticImports(read(`functions/${group}/routes.ts`))).toEqual([]);
      expect(read(`functions/${group}/routes.ts`)).toMatch(/await import\("\.\/[a-z-]+\.ts"\)/);
    },
  );

  it("the app mounts the groups through lazy.ts, which imports nothing but Hono", () => {
    expect(staticImports(read("shared/http/lazy.ts"))).toEqual(["hono"]);
    expect(staticImports(read("functions/einvoicing/app.ts"))).not.toContain("../../shared/http/route.ts");
  });
});
