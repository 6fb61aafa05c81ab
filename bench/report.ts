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
  /**
   * An absolute budget: `value` must be at most `max`. Only for figures with no floor in the run
   * (a render, DIAN signing, a certificate's CPU, a heap, a count) or already a ratio.
   */
  max?: number;
  /** An absolute lower budget: `value` must be at least `min` (a fraction of a floor's throughput). */
  min?: number;
  /** A budget relative to the floor: `value ÷ floor` must be at most `maxRatio`. */
  maxRatio?: number;
  /** What the hardware allows for the same work, measured in the same run (same unit). */
  floor?: number;
  /** Free text: the ideal, the sample count, the parts. */
  note?: string;
}

/** `value ÷ floor`, when the figure has a floor. */
export const ratio = (f: Figure): number | undefined =>
  f.floor === undefined ? undefined : f.value / f.floor;

const hasBudget = (f: Figure) => f.max !== undefined || f.min !== undefined || f.maxRatio !== undefined;

/** PASS when every budget the figure has is met (NaN never meets one), "" when it has none. */
export function verdict(f: Figure): "" | "PASS" | "MISS <<<" {
  if (!hasBudget(f)) return "";
  const met =
    (f.max === undefined || f.value <= f.max) &&
    (f.min === undefined || f.value >= f.min) &&
    (f.maxRatio === undefined || (ratio(f) ?? Number.NaN) <= f.maxRatio);
  return met ? "PASS" : "MISS <<<";
}

const format = (value: number, unit: Figure["unit"]) =>
  unit === "ms"
    ? `${value < 100 ? value.toFixed(2) : value.toFixed(0)} ms`
    : unit === "ratio"
      ? value.toFixed(3)
      : `${value < 100 ? value.toFixed(1) : value.toFixed(0)} ${unit}`;

/** An absolute budget in ms, MiB or req/s: marked, and why (no floor in the run, or one too coarse). */
const absolute = (f: Figure) =>
  f.unit === "ratio" ? "" : f.floor === undefined ? " (no floor)" : " (absolute)";

const budget = (f: Figure) =>
  [
    f.maxRatio === undefined ? "" : `≤ ${f.maxRatio}× floor`,
    f.min === undefined ? "" : `≥ ${format(f.min, f.unit)}`,
    f.max === undefined ? "" : `≤ ${format(f.max, f.unit)}${absolute(f)}`,
  ]
    .filter(Boolean)
    .join(", ");

export function printFigures(title: string, figures: Figure[], notes: string[] = []): void {
  const rows = figures.map((f) => [
    f.what,
    format(f.value, f.unit),
    f.floor === undefined ? "" : `${(ratio(f) ?? Number.NaN).toFixed(2)}× floor`,
    budget(f),
    f.floor === undefined ? "" : format(f.floor, f.unit),
    verdict(f),
  ]);
  const head = ["measure", "measured", "ratio", "budget", "floor", ""];
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
  const legend = figures.some((f) => f.maxRatio !== undefined)
    ? [
        'budgets in "× floor" are ratios to a floor measured in the same run; "(no floor)" and "(absolute)" ones are not',
      ]
    : [];
  if (withNotes.length + notes.length + legend.length > 0) console.log("");
  for (const f of withNotes) console.log(`  ${f.what}: ${f.note}`);
  for (const n of [...notes, ...legend]) console.log(`  ${n}`);
  const budgets = figures.filter(hasBudget);
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
    figures: figures.map((f) => ({ ...f, ratio: ratio(f), verdict: verdict(f) || undefined })),
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
