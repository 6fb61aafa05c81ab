/**
 * `npm ci` installs from package-lock.json alone and refuses a lock that lacks a package some
 * dependency declares, optional platform packages included ("Missing: @biomejs/cli-android-arm64
 * from lock file"). So every optional dependency of every locked package is itself locked, at a
 * version that satisfies the declaration, and CI installs with `npm ci`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const read = (path: string) => readFileSync(join(root, path), "utf8");

interface Locked {
  version?: string;
  optionalDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}
const lock = JSON.parse(read("package-lock.json")) as {
  lockfileVersion: number;
  packages: Record<string, Locked>;
};
const manifest = JSON.parse(read("package.json")) as Locked;

/** Where Node would find `name` from the package at `at`: its own node_modules, then each parent's. */
function resolve(at: string, name: string): Locked | undefined {
  let dir = at;
  for (;;) {
    const found = lock.packages[`${dir ? `${dir}/` : ""}node_modules/${name}`];
    if (found) return found;
    if (!dir) return undefined;
    const cut = dir.lastIndexOf("/node_modules/");
    dir = cut < 0 ? "" : dir.slice(0, cut);
  }
}

describe("package-lock.json", () => {
  it("is a version 3 lock whose root pins exactly what package.json pins", () => {
    expect(lock.lockfileVersion).toBe(3);
    const rootEntry = lock.packages[""] ?? {};
    expect(rootEntry.dependencies).toEqual(manifest.dependencies);
    expect(rootEntry.devDependencies).toEqual(manifest.devDependencies);
  });

  it("records every optional (platform) package that a locked package declares", () => {
    const missing: string[] = [];
    for (const [at, entry] of Object.entries(lock.packages)) {
      for (const [name, wanted] of Object.entries(entry.optionalDependencies ?? {})) {
        const found = resolve(at, name);
        // the CLIs pin their platform packages to their own exact version
        if (!found || (/^\d+\.\d+\.\d+$/.test(wanted) && found.version !== wanted)) {
          missing.push(`${at || "(root)"} → ${name}@${wanted}${found ? ` (locked ${found.version})` : ""}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("is what CI installs from, with npm ci", () => {
    const ci = read(".ci/run");
    expect(ci).toMatch(/^npm ci\b/m);
    expect(ci).not.toMatch(/^npm install\b/m);
  });
});
