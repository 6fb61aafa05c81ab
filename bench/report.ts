/**
 * The bench's figures: one row per measurement, printed as a table and written as JSON
 * (`--json`), so that runs can be compared across commits.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname } from "node:path";

export interface Figure {
  /** Stable key, for comparing JSON across runs. */
  id: string;
  what: string;
  value: number;
  unit: "ms" | "ratio" | "req/s" | "docs/s" | "MiB";
  /** The budget, when the figure has one: `value` must be at most `max`. */
  max?: number;
  /** What the hardware allows for the same work, reported beside it (same unit). */
  floor?: number;
  /** Free text: the ideal, the sample count, the parts. */
  note?: string;
}

export const verdict = (f: Figure) => (f.max === undefined ? "" : f.value <= f.max ? "PASS" : "MISS <<<");

const format = (value: number, unit: Figure["unit"]) =>
  unit === "ms"
    ? `${value < 100 ? value.toFixed(2) : value.toFixed(0)} ms`
    : unit === "ratio"
      ? value.toFixed(3)
      : `${value < 100 ? value.toFixed(1) : value.toFixed(0)} ${unit}`;

export function printFigures(title: string, figures: Figure[], notes: string[] = []): void {
  const rows = figures.map((f) => [
    f.what,
    format(f.value, f.unit),
    f.max === undefined ? "" : `≤ ${format(f.max, f.unit)}`,
    f.floor === undefined ? "" : format(f.floor, f.unit),
    verdict(f),
  ]);
  const head = ["measure", "measured", "budget", "floor", ""];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) =>
    r
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  console.log(`\n${title}\n`);
  console.log(line(head));
  console.log("-".repeat(widths.reduce((a, b) => a + b + 2, 0)));
  for (const r of rows) console.log(line(r));
  const withNotes = figures.filter((f) => f.note);
  if (withNotes.length + notes.length > 0) console.log("");
  for (const f of withNotes) console.log(`  ${f.what}: ${f.note}`);
  for (const n of notes) console.log(`  ${n}`);
  const budgets = figures.filter((f) => f.max !== undefined);
  const missed = budgets.filter((f) => verdict(f) !== "PASS").length;
  if (budgets.length > 0) {
    console.log(
      missed
        ? `\n${missed} of ${budgets.length} budgets MISSED (a measurement: the exit code stays 0)\n`
        : `\nall ${budgets.length} budgets met\n`,
    );
  }
}

/** Writes the figures, with what they were measured on, to `path`. */
export function writeFigures(path: string, section: string, database: string, figures: Figure[]): void {
  const document = {
    section,
    measured_at: new Date().toISOString(),
    runtime: "Deno" in globalThis ? `Deno ${process.versions.deno}` : `Node ${process.version}`,
    cpus: cpus().length,
    database,
    figures: figures.map((f) => ({ ...f, verdict: verdict(f) || undefined })),
  };
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`figures written to ${path}`);
}

/** `--json` or `--json=<path>`: where to write the figures, or undefined. */
export function jsonPath(argv: string[], fallback: string): string | undefined {
  const flag = argv.find((a) => a === "--json" || a.startsWith("--json="));
  if (!flag) return undefined;
  return flag === "--json" ? fallback : flag.slice("--json=".length);
}
