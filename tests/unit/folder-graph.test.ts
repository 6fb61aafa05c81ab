/**
 * The top-level folders import one another without a cycle, and nothing outside `tests/` imports
 * `tests/`: the harness that tests, the bench and the scripts share lives in `devkit/`. Read from the
 * source: every relative `import … from`, `export … from`, side-effect `import` and `import()` of
 * every module file in the repository (type-only imports included: they tie the folders all the same).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MODULE = /\.(?:[cm]?[jt]s|tsx)$/;
/** Not source of ours: installed packages, run output, generated reports and other tools' copies. */
const SKIPPED = new Set(["node_modules", "coverage", "reports"]);

interface Edge {
  from: string;
  to: string;
  /** Where it happens: `file:line → specifier`. */
  where: string;
}

function moduleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith(".") || SKIPPED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return moduleFiles(path);
    return MODULE.test(entry.name) ? [path] : [];
  });
}

/** The top-level folder a path lies in (`.` for a file at the root). */
function folderOf(path: string): string {
  const parts = relative(ROOT, path).split(sep);
  return parts.length > 1 ? (parts[0] as string) : ".";
}

const SPECIFIER =
  /(?:\bimport|\bexport)\s+(?:type\s+)?[^"'`;]*?\bfrom\s*["']([^"']+)["']|\bimport\s*\(?\s*["']([^"']+)["']/g;

/** Every import of one folder from another, with the place it happens. */
function folderEdges(files: string[]): Edge[] {
  const edges: Edge[] = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2] ?? "";
      if (!specifier.startsWith(".")) continue;
      const from = folderOf(file);
      const to = folderOf(resolve(dirname(file), specifier));
      const line = text.slice(0, (match.index ?? 0) + match[0].length).split("\n").length;
      if (from !== to) edges.push({ from, to, where: `${relative(ROOT, file)}:${line} → ${specifier}` });
    }
  }
  return edges;
}

/** A cycle among the folders, as its path with one import per step; null when there is none. */
function folderCycle(edges: Edge[]): string[] | null {
  const next = new Map<string, Map<string, string>>();
  for (const { from, to, where } of edges) {
    if (!next.has(from)) next.set(from, new Map());
    next.get(from)?.set(to, where);
  }
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (folder: string): string[] | null => {
    const at = path.indexOf(folder);
    if (at >= 0) {
      const loop = [...path.slice(at), folder];
      return loop.slice(1).map((to, i) => `${loop[i]} → ${to} (${next.get(loop[i] as string)?.get(to)})`);
    }
    if (done.has(folder)) return null;
    path.push(folder);
    for (const to of next.get(folder)?.keys() ?? []) {
      const cycle = visit(to);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(folder);
    return null;
  };
  for (const folder of [...next.keys()].sort()) {
    const cycle = visit(folder);
    if (cycle) return cycle;
  }
  return null;
}

describe("the folders' import graph", () => {
  const edges = folderEdges(moduleFiles(ROOT));

  it("reads the imports it checks (the harness is imported from devkit/)", () => {
    expect(edges.some((edge) => edge.from === "tests" && edge.to === "devkit")).toBe(true);
    expect(edges.some((edge) => edge.from === "bench" && edge.to === "devkit")).toBe(true);
  });

  it("has no import of tests/ from outside tests/", () => {
    const intoTests = edges.filter((edge) => edge.to === "tests" && edge.from !== "tests");
    expect(intoTests.map((edge) => edge.where)).toEqual([]);
  });

  it("has no cycle between top-level folders", () => {
    expect(folderCycle(edges)).toBeNull();
  });
});
