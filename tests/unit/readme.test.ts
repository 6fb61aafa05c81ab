/**
 * The README stays a page for the person who just cloned the repo, and what it says stays true of
 * the tree: short, no issue numbers or dated runs (history lives in git and docs/performance.md),
 * every file it names and every link of it and of the docs it owns exists, every `npm run` it names
 * is a script, and every variable of its configuration table is one the config reads.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const read = (path: string) => readFileSync(join(root, path), "utf8");
const readme = read("README.md");

/** The documents the README sends a reader to, and the ADRs. */
const documents = [
  "README.md",
  "docs/api.md",
  "docs/creating-invoices.md",
  "docs/guarantees.md",
  "docs/performance.md",
  "docs/web-example.md",
  ...readdirSync(join(root, "docs/adr")).map((name) => `docs/adr/${name}`),
];

describe("the README", () => {
  it("is under 350 lines", () => {
    expect(readme.split("\n").length).toBeLessThan(350);
  });

  it("names no issue and no dated run", () => {
    expect(readme.match(/\bissues? \d+|\(#\d+\)|\b20\d\d-\d\d-\d\d\b/gi) ?? []).toEqual([]);
  });

  it("names only files and folders that exist", () => {
    const named = [
      ...readme.matchAll(
        /`((?:shared|functions|supabase|scripts|client|sandbox|bench|docs|tests|devkit)\/[\w./-]*)`/g,
      ),
    ].map((m) => m[1] as string);
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });

  it("runs only npm scripts that package.json has", () => {
    const scripts = Object.keys((JSON.parse(read("package.json")) as { scripts: object }).scripts);
    const named = [...readme.matchAll(/npm run ([\w-]+(?::[\w-]+)*)/g)].map((m) => m[1] as string);
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((name) => !scripts.includes(name))).toEqual([]);
  });

  it("lists in its configuration table only variables shared/config.ts reads", () => {
    const table = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## Deploying"));
    const variables = [...table.matchAll(/^\| `([A-Z_]+)`(?: \/ `([A-Z_]+)`|, `([A-Z_]+)`)?/gm)].flatMap(
      (m) => m.slice(1).filter((v): v is string => v !== undefined),
    );
    expect(variables.length).toBeGreaterThan(20);
    const config = read("shared/config.ts");
    expect(variables.filter((name) => !config.includes(`${name}:`))).toEqual([]);
  });
});

describe("the README's documents", () => {
  it.each(documents)("%s links only to files that exist", (path) => {
    const links = [...read(path).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
      .map((m) => m[1] as string)
      .filter((target) => !/^[a-z]+:/.test(target));
    expect(links.filter((target) => !existsSync(normalize(join(root, dirname(path), target))))).toEqual([]);
  });
});
