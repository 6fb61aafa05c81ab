/**
 * The heap during the largest request (DESIGN §7: under 128 MB): the stamped render of a 1,000-line
 * invoice, in a fresh Deno process, as the first render of that process (pdf-lib, its fonts and the
 * JIT loaded during it, as in a worker whose first request it is). The peak is read from V8's own
 * GC trace (`--trace-gc`): the heap only grows between collections, so its highest point is the
 * size before one of them or at the end; two forced collections (`gc()`, traced as "testing")
 * bracket the render. The ArrayBuffers alive at the end (the PDF, uncollected chunks) live outside
 * that heap and are added to it.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const DENO = `${ROOT}node_modules/.bin/deno`;

export interface RenderHeap {
  /** Peak V8 heap during the render, MiB (used, before each collection). */
  peakMiB: number;
  /** ArrayBuffers' backing stores at the render's end, MiB. */
  buffersMiB: number;
  /** V8 heap used before the render, after a full collection, MiB. */
  beforeMiB: number;
  /** Collections during the render. */
  collections: number;
  pdfBytes: number;
  lines: number;
}

/** Runs this file in a fresh Deno process and reads its GC trace. */
export async function measureRenderHeap(lines = 1000): Promise<RenderHeap> {
  const child = spawn(
    DENO,
    ["run", "--allow-all", "--quiet", "--v8-flags=--expose-gc,--trace-gc", fileURLToPath(import.meta.url)],
    {
      cwd: ROOT,
      env: { ...process.env, RENDER_HEAP_LINES: String(lines) },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk) => (out += chunk));
  child.stderr?.on("data", (chunk) => (err += chunk));
  const code = await new Promise((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`render-heap exited with ${code}: ${err.slice(-500)}`);
  return readTrace(out, lines);
}

/** The figures from the child's output: GC trace lines, then one JSON line. */
export function readTrace(output: string, lines: number): RenderHeap {
  const all = output.split("\n");
  const result = JSON.parse(all.find((l) => l.startsWith("{")) ?? "null") as {
    buffers: number;
    pdfBytes: number;
  } | null;
  const gcs = all
    .map((l) =>
      /: (Scavenge|Mark-Compact|Minor Mark-Sweep|Mark-Sweep)[^\d]*([\d.]+) \([\d.]+\) -> ([\d.]+)/.exec(l),
    )
    .map((m, i) =>
      m
        ? { before: Number(m[2]), after: Number(m[3]), testing: /\btesting\b/.test(all[i] ?? "") }
        : undefined,
    )
    .filter((g) => g !== undefined);
  const marks = gcs.flatMap((g, i) => (g.testing ? [i] : []));
  const [first, last] = [marks[0], marks.at(-1)];
  if (!result || first === undefined || last === undefined || first === last)
    throw new Error(`render-heap: no bracketing collections in its trace:\n${output.slice(-1000)}`);
  const during = gcs.slice(first + 1, last + 1);
  return {
    peakMiB: Math.max(...during.map((g) => g.before)),
    buffersMiB: result.buffers / (1024 * 1024),
    beforeMiB: gcs[first]?.after ?? Number.NaN,
    collections: during.length - 1,
    pdfBytes: result.pdfBytes,
    lines,
  };
}

async function child(): Promise<void> {
  const { acceptedFiscal, manyLinesInvoice } = await import("../devkit/pdf/fixtures.ts");
  const { toInvoicePdfModel } = await import("../shared/pdf/model.ts");
  const lines = Number(process.env.RENDER_HEAP_LINES ?? 1000);
  const model = toInvoicePdfModel(manyLinesInvoice(lines), acceptedFiscal());
  const gc = (globalThis as unknown as { gc: () => void }).gc;
  gc();
  const { renderDocumentPdf } = await import("../shared/pdf/render-document.ts");
  const pdf = await renderDocumentPdf(model);
  const buffers = process.memoryUsage().external;
  gc();
  console.log(JSON.stringify({ buffers, pdfBytes: pdf.byteLength }));
}

if ((import.meta as ImportMeta & { main?: boolean }).main) await child();
