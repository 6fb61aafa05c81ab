/**
 * The top-level folders import one another without a cycle, and nothing outside `tests/` imports
 * `tests/`: the harness that tests, the bench and the scripts share lives in `devkit/`. Read from the
 * source: every relative `import … from`, `export … from`, side-effect `import` and `import()` of
 * every module file in the repository (type-only imports included: they tie the folders all the same).
 */
import { relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { groupCycle, groupEdges, moduleFiles, ROOT } from "../support/import-graph.ts";

/** The top-level folder a path lies in (`.` for a file at the root). */
function folderOf(path: string): string {
  const parts = relative(ROOT, path).split(sep);
  return parts.length > 1 ? (parts[0] as string) : ".";
}

describe("the folders' import graph", () => {
  const edges = groupEdges(moduleFiles(ROOT), folderOf);

  it("reads the imports it checks (the harness is imported from devkit/)", () => {
    expect(edges.some((edge) => edge.from === "tests" && edge.to === "devkit")).toBe(true);
    expect(edges.some((edge) => edge.from === "bench" && edge.to === "devkit")).toBe(true);
  });

  it("has no import of tests/ from outside tests/", () => {
    const intoTests = edges.filter((edge) => edge.to === "tests" && edge.from !== "tests");
    expect(intoTests.map((edge) => edge.where)).toEqual([]);
  });

  it("has no cycle between top-level folders", () => {
    expect(groupCycle(edges)).toBeNull();
  });
});
