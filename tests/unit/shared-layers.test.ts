/**
 * `shared/` shows its architecture (docs/adr/0008-one-room-per-concern.md): each first-level entry
 * (folder, or file directly in `shared/`) is a layer that may import only the layers its row lists,
 * so no two of them import each other, directly or through a third; the domain core imports no
 * adapter; and DIAN direct lives in one folder. A new folder must be given its row here, which is
 * where its place in the layers is decided.
 */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { entryUnder, groupCycle, groupEdges, moduleFiles, ROOT } from "../support/import-graph.ts";

const SHARED = join(ROOT, "shared");

/** What each layer of `shared/` may import; lower layers first. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  // the vocabulary under everything: errors, result codes, money, row types, events, log, bytes
  kernel: [],
  crypto: [],
  "cors.ts": [],
  // the ports the core drives, with the shapes and rules that hold at them
  ports: ["kernel", "crypto"],
  // what is Colombian, whoever transmits
  co: ["kernel", "crypto"],
  pdf: ["kernel", "co"],
  events: ["kernel", "crypto", "ports"],
  // the domain: it drives ports and never imports an adapter
  core: ["kernel", "crypto", "ports", "co", "pdf", "events"],
  // the adapters
  db: ["kernel", "ports"],
  storage: ["kernel", "ports", "db"],
  providers: ["kernel", "crypto", "ports", "co", "pdf"],
  runtime: ["kernel", "ports"],
  // the HTTP side and its configuration
  "config.ts": ["kernel", "co", "cors.ts"],
  auth: ["kernel", "crypto", "config.ts"],
  http: [
    "kernel",
    "crypto",
    "ports",
    "co",
    "pdf",
    "events",
    "core",
    "db",
    "runtime",
    "auth",
    "config.ts",
    "cors.ts",
  ],
  // the composition root builds the adapters: it may import anything
  "compose.ts": ["*"],
};
/** The adapters: the core reaches them only through ports. */
const ADAPTERS = ["db", "storage", "providers", "runtime"];

const files = moduleFiles(SHARED).filter((file) => !file.includes("/schemas/"));
const edges = groupEdges(files, (path) => entryUnder(SHARED, path));

describe("shared/'s layers", () => {
  it("reads the imports it checks", () => {
    expect(edges.some((e) => e.from === "core" && e.to === "ports")).toBe(true);
    expect(edges.some((e) => e.from === "providers" && e.to === "ports")).toBe(true);
  });

  it("gives every first-level folder and file of shared/ a row", () => {
    const entries = readdirSync(SHARED).filter((name) => !name.startsWith("."));
    expect(entries.filter((name) => !(name in MAY_IMPORT))).toEqual([]);
  });

  it("has each layer import only what its row allows", () => {
    const breaking = edges.filter((e) => {
      const allowed = MAY_IMPORT[e.from] ?? [];
      return !allowed.includes("*") && !allowed.includes(e.to);
    });
    expect(breaking.map((e) => `${e.from} → ${e.to}: ${e.where}`)).toEqual([]);
  });

  it("has no two first-level entries that import each other, directly or through a third", () => {
    expect(groupCycle(edges)).toBeNull();
  });

  it("keeps the domain core off the adapters", () => {
    const intoAdapters = edges.filter((e) => e.from === "core" && ADAPTERS.includes(e.to));
    expect(intoAdapters.map((e) => e.where)).toEqual([]);
  });

  it("keeps DIAN direct in one folder: shared/providers/dian/", () => {
    const dian = files
      .map((file) => relative(SHARED, file))
      .filter((path) => /(^|\/)dian[^/]*$|(^|\/)dian\//.test(path));
    expect(dian.length).toBeGreaterThan(10);
    expect(dian.filter((path) => !path.startsWith("providers/dian/"))).toEqual([]);
  });
});

describe("the cycle finder", () => {
  const edge = (from: string, to: string) => ({ from, to, where: `${from}.ts → ${to}` });

  it("finds a loop through a third folder, and names the imports that close it", () => {
    expect(
      groupCycle([edge("core", "providers"), edge("providers", "ports"), edge("ports", "core")]),
    ).toEqual([
      "core → providers (core.ts → providers)",
      "providers → ports (providers.ts → ports)",
      "ports → core (ports.ts → core)",
    ]);
  });

  it("finds none in layers", () => {
    expect(
      groupCycle([edge("core", "ports"), edge("providers", "ports"), edge("core", "kernel")]),
    ).toBeNull();
  });
});
