/**
 * The stand-in is an oracle only while it shares nothing with what it judges: its rules read the XML
 * alone (issue 36 item 5). No module of sandbox/dian/ imports our builder (shared/providers/dian/,
 * but for the certificate reader "DIAN" signs its answers with), what is Colombian to the service
 * (shared/co/: its code lists, DIVIPOLA, the CUFE) or the database's amounts; its rule modules import
 * nothing of shared/ at all.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/import-graph.ts";

const DIR = join(ROOT, "sandbox", "dian");
const modules = readdirSync(DIR).filter((name) => name.endsWith(".ts"));
const importsOf = (name: string) =>
  [...readFileSync(join(DIR, name), "utf8").matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map(
    (m) => m[1] ?? "",
  );

describe("the DIAN stand-in's independence", () => {
  it("reads the modules it checks", () => {
    expect(modules).toContain("rules-amounts.ts");
    expect(importsOf("rules.ts")).toContain("./rules-amounts.ts");
  });

  it("imports nothing of the builder, shared/co/ or the migrations", () => {
    const shared = modules.flatMap((name) =>
      importsOf(name)
        .filter((path) => /(^|\/)(shared|supabase)\//.test(path))
        .filter(
          (path) =>
            !/shared\/(kernel\/bytes|ports\/providers\/deliver|providers\/dian\/certificate)\.ts$/.test(path),
        )
        .map((path) => `${name} → ${path}`),
    );
    expect(shared).toEqual([]);
  });

  it("judges with modules that import nothing of shared/", () => {
    const judging = ["content.ts", "decimal.ts", "document.ts", "divipola.ts", "code-lists.ts", "finding.ts"];
    const rules = modules.filter((name) => name.startsWith("rules") || judging.includes(name));
    expect(rules.length).toBeGreaterThanOrEqual(9);
    expect(
      rules.flatMap((name) =>
        importsOf(name)
          .filter((p) => p.includes("shared/"))
          .map((p) => `${name} → ${p}`),
      ),
    ).toEqual([]);
  });
});
