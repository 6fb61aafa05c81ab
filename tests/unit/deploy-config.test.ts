/**
 * What deploys must agree with what is tested: deno.json pins the same npm versions as
 * package.json, config.toml points the function at the real entry with verify_jwt off, and the file
 * it names as import_map holds nothing the deploy bundler would act on wrongly (ADR 0003).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), "utf8");

describe("deploy configuration", () => {
  it("pins every deno.json import to the version package.json installs", () => {
    const pkg = JSON.parse(read("package.json")) as { dependencies: Record<string, string> };
    const imports = (JSON.parse(read("deno.json")) as { imports: Record<string, string> }).imports;
    for (const [name, target] of Object.entries(imports)) {
      const match = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)@([^/]+)\/?$/.exec(target);
      expect(match, `${name} → ${target}`).not.toBeNull();
      expect(pkg.dependencies[match?.[1] ?? ""], name).toBe(match?.[2]);
    }
  });

  it.each(["einvoicing", "reconcile"])(
    "declares the %s function with its entry, the import map and verify_jwt off",
    (name) => {
      const toml = read("supabase/config.toml");
      const section = (toml.split(`[functions.${name}]`)[1] ?? "").split("\n[")[0] ?? "";
      expect(section).not.toBe("");
      expect(section).toMatch(/verify_jwt = false/);
      const entry = /entrypoint = "([^"]+)"/.exec(section)?.[1] ?? "";
      const importMap = /import_map = "([^"]+)"/.exec(section)?.[1] ?? "";
      expect(entry).toBe(`../functions/${name}/index.ts`);
      expect(existsSync(new URL(`supabase/${entry}`, root))).toBe(true);
      expect(existsSync(new URL(`supabase/${importMap}`, root))).toBe(true);
    },
  );

  it.each(["einvoicing", "reconcile"])(
    "names for %s an import_map the deploy bundler can read as its Deno config",
    (name) => {
      const toml = read("supabase/config.toml");
      const section = (toml.split(`[functions.${name}]`)[1] ?? "").split("\n[")[0] ?? "";
      const importMap = (/import_map = "\.\.\/([^"]+)"/.exec(section)?.[1] ?? "") as string;
      const out = mkdtempSync(join(tmpdir(), "einv-deploy-scan-"));
      try {
        // The scan of scripts/ci/deno-deploy-check.sh without Deno: the keys, the imports, the pins.
        const scan = spawnSync(
          process.execPath,
          ["scripts/ci/deno-deploy-scan.mjs", out, importMap, `functions/${name}/index.ts`],
          { cwd: fileURLToPath(root), encoding: "utf8" },
        );
        expect(scan.stderr).toBe("");
        expect(scan.status).toBe(0);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
  );
});
