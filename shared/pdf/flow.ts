/**
 * Page geometry and the cursor that moves down the page, opening a continuation page when the next
 * block does not fit. Everything in PDF points (1/72 in), origin at the bottom-left corner.
 */
import type { PDFDocument, PDFPage } from "pdf-lib";
import { BusinessRuleError } from "../kernel/errors.ts";
import type { PageSizeName } from "./model.ts";

/**
 * The render budget: no document is drawn past this many pages. Every page costs about a
 * millisecond, and a render runs on the event loop that serves every tenant's requests, so the
 * most a render can take must be bounded whatever the data. The database's length limits already
 * keep ordinary invoices far below it (1,000 lines of one-line descriptions fill about 40 pages);
 * only documents built to be huge reach it, and they get a clear 422 instead of a render.
 */
export const MAX_PAGES = 100;

/** A document that would need more than `MAX_PAGES` pages: answered 422 `business_rule`. */
export class RenderBudgetError extends BusinessRuleError {
  constructor() {
    super(
      `The document is too large to render: its PDF would pass ${MAX_PAGES} pages. ` +
        "Shorten its line descriptions or notes, or split it into several documents.",
    );
  }
}

const SIZES: Record<PageSizeName, [number, number]> = { letter: [612, 792], a4: [595.28, 841.89] };

export interface Frame {
  width: number;
  height: number;
  left: number;
  right: number;
  top: number;
  /** Lowest y content may reach; the footer lives below it. */
  bottom: number;
  /** Baseline of the footer text. */
  footer: number;
}

export function frameFor(size: PageSizeName): Frame {
  const [width, height] = SIZES[size];
  const margin = 36;
  return { width, height, left: margin, right: width - margin, top: height - margin, bottom: 46, footer: 24 };
}

export class Flow {
  readonly pages: PDFPage[] = [];
  page: PDFPage;
  y: number;

  /** `continuation` draws the compact header of a follow-on page and returns the y below it. */
  constructor(
    private readonly doc: PDFDocument,
    readonly frame: Frame,
    private readonly continuation: (page: PDFPage) => number,
  ) {
    this.page = this.addPage();
    this.y = frame.top;
  }

  get contentWidth(): number {
    return this.frame.right - this.frame.left;
  }

  /** Room left above `bottom` (or above the frame's bottom). */
  room(bottom = this.frame.bottom): number {
    return this.y - bottom;
  }

  /** Opens a new page when fewer than `height` points are left; `afterBreak` runs on the new page. */
  ensure(height: number, afterBreak?: () => void): boolean {
    if (this.room() >= height) return false;
    this.newPage();
    afterBreak?.();
    return true;
  }

  newPage(): void {
    this.page = this.addPage();
    this.y = this.continuation(this.page);
  }

  private addPage(): PDFPage {
    if (this.pages.length >= MAX_PAGES) throw new RenderBudgetError();
    const page = this.doc.addPage([this.frame.width, this.frame.height]);
    this.pages.push(page);
    return page;
  }
}
