/**
 * Render timings for the benchmark (DESIGN §7: a 20-line invoice renders in ≤ 40 ms). Not a test:
 * budgets are measured, not asserted in timed tests. Runs on Node and Deno; pdf-lib's first load
 * and the first render (JIT warm-up) are excluded by the warm-up runs.
 */
import { cpuUsage } from "node:process";
import { acceptedFiscal, manyLinesInvoice } from "../devkit/pdf/fixtures.ts";
import { RenderBudgetError } from "../shared/pdf/flow.ts";
import { type DocumentPdfModel, toInvoicePdfModel } from "../shared/pdf/model.ts";
import { renderDocumentPdf } from "../shared/pdf/render-document.ts";

export interface RenderTiming {
  lines: number;
  stamped: boolean;
  runs: number;
  /** Wall-clock times. */
  medianMs: number;
  p95Ms: number;
  minMs: number;
  /** Median process CPU time (user + system) per render: steadier than wall time on a busy or
   * throttled machine, where wall time also counts the time the process waited for a core. */
  cpuMedianMs: number;
  bytes: number;
  /** Time of the very first render in this process (includes importing pdf-lib if not yet loaded). */
  firstMs: number;
}

export interface RenderTimingOptions {
  /** Line counts to measure; default [20, 200]. */
  lines?: number[];
  /** Timed runs per size; default 20. */
  runs?: number;
  /** Untimed runs before measuring; default 3. */
  warmup?: number;
}

/** Median, p95 and min render time of stamped invoices of each size, rendered sequentially. */
export async function measureRenderTiming(options: RenderTimingOptions = {}): Promise<RenderTiming[]> {
  const { lines = [20, 200], runs = 20, warmup = 3 } = options;
  const results: RenderTiming[] = [];
  for (const count of lines) {
    const model: DocumentPdfModel = toInvoicePdfModel(manyLinesInvoice(count), acceptedFiscal());
    let start = performance.now();
    const first = await renderDocumentPdf(model);
    const firstMs = performance.now() - start;
    for (let i = 0; i < warmup; i++) await renderDocumentPdf(model);
    const times: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < runs; i++) {
      const before = cpuUsage();
      start = performance.now();
      await renderDocumentPdf(model);
      times.push(performance.now() - start);
      const used = cpuUsage(before);
      cpu.push((used.user + used.system) / 1000);
    }
    times.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? Number.NaN;
    results.push({
      lines: count,
      stamped: true,
      runs,
      medianMs: round(at(0.5)),
      p95Ms: round(at(0.95)),
      minMs: round(times[0] ?? Number.NaN),
      cpuMedianMs: round(cpu[Math.floor(cpu.length / 2)] ?? Number.NaN),
      bytes: first.length,
      firstMs: round(firstMs),
    });
  }
  return results;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

export interface WorstCaseTiming {
  /** The worst invoices the database's limits allow (unbroken words; one-letter words): the slower
   * one's median wall time until the render budget refuses it. */
  refusedMedianMs: number;
  /** 1,000 lines of ordinary descriptions, the largest realistic invoice: a full stamped render. */
  largestMedianMs: number;
  runs: number;
}

/** What the render budget bounds: the worst allowed input, and the largest ordinary one (warm). */
export async function measureWorstCase(runs = 5): Promise<WorstCaseTiming> {
  const { shortWordsInvoice, worstCaseInvoice } = await import("../devkit/pdf/worst-case.ts");
  const worstModels = [worstCaseInvoice(), shortWordsInvoice()].map((doc) =>
    toInvoicePdfModel(doc, acceptedFiscal()),
  );
  const largest = toInvoicePdfModel(manyLinesInvoice(1000), acceptedFiscal());
  const time = async (work: () => Promise<unknown>) => {
    await work();
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      await work();
      times.push(performance.now() - start);
    }
    return round(times.sort((a, b) => a - b)[Math.floor(runs / 2)] ?? Number.NaN);
  };
  const refusals: number[] = [];
  for (const worst of worstModels) {
    refusals.push(
      await time(async () => {
        // refused by the budget, never rendered: anything else is a broken bench
        const error = await renderDocumentPdf(worst).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (!(error instanceof RenderBudgetError))
          throw new Error(`expected the render budget to refuse: ${error}`);
      }),
    );
  }
  const refusedMedianMs = Math.max(...refusals);
  return { refusedMedianMs, largestMedianMs: await time(() => renderDocumentPdf(largest)), runs };
}
