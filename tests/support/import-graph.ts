/**
 * The import graph between folders, read from the source: every relative `import … from`,
 * `export … from`, side-effect `import` and `import()` of every module file under a root (type-only
 * imports included: they tie the folders all the same). Used by the folder-graph and shared-layers
 * tests.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MODULE = /\.(?:[cm]?[jt]s|tsx)$/;
/** Not source of ours: installed packages, run output, generated reports and other tools' copies. */
const SKIPPED = new Set(["node_modules", "coverage", "reports"]);

export interface Edge {
  from: string;
  to: string;
  /** Where it happens: `file:line → specifier`. */
  where: string;
}

export function moduleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith(".") || SKIPPED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return moduleFiles(path);
    return MODULE.test(entry.name) ? [path] : [];
  });
}

/**
 * The first-level entry of `root` a path lies in: its folder, or the file itself for a file directly
 * in `root`; null outside `root`.
 */
export function entryUnder(root: string, path: string): string | null {
  const rel = relative(root, path);
  if (rel.startsWith("..") || rel === "") return null;
  return rel.split(sep)[0] as string;
}

const SPECIFIER =
  /(?:\bimport|\bexport)\s+(?:type\s+)?[^"'`;]*?\bfrom\s*["']([^"']+)["']|\bimport\s*\(?\s*["']([^"']+)["']/g;

/**
 * Every import from one group to another among `files`, with the place it happens; `groupOf` names a
 * path's group (null: not counted, e.g. a target outside the tree looked at).
 */
export function groupEdges(files: string[], groupOf: (path: string) => string | null): Edge[] {
  const edges: Edge[] = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2] ?? "";
      if (!specifier.startsWith(".")) continue;
      const from = groupOf(file);
      const to = groupOf(resolve(dirname(file), specifier));
      if (from === null || to === null || from === to) continue;
      const line = text.slice(0, (match.index ?? 0) + match[0].length).split("\n").length;
      edges.push({ from, to, where: `${relative(ROOT, file)}:${line} → ${specifier}` });
    }
  }
  return edges;
}

/** A cycle among the groups, as its path with one import per step; null when there is none. */
export function groupCycle(edges: Edge[]): string[] | null {
  const next = new Map<string, Map<string, string>>();
  for (const { from, to, where } of edges) {
    if (!next.has(from)) next.set(from, new Map());
    next.get(from)?.set(to, where);
  }
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (group: string): string[] | null => {
    const at = path.indexOf(group);
    if (at >= 0) {
      const loop = [...path.slice(at), group];
      return loop.slice(1).map((to, i) => `${loop[i]} → ${to} (${next.get(loop[i] as string)?.get(to)})`);
    }
    if (done.has(group)) return null;
    path.push(group);
    for (const to of next.get(group)?.keys() ?? []) {
      const cycle = visit(to);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(group);
    return null;
  };
  for (const group of [...next.keys()].sort()) {
    const cycle = visit(group);
    if (cycle) return cycle;
  }
  return null;
}
