/**
 * The lines table (flowing onto continuation pages, its header repeated on each) and the summary
 * under it: tax breakdown, total in words, totals, and the notes.
 */
import type { Flow } from "./flow.ts";
import { type Kit, palette } from "./kit.ts";
import type { DocumentPdfModel, PdfLine } from "./model.ts";
import { fitSize } from "./sections.ts";

interface Column {
  key: keyof PdfLine;
  title: string;
  /** Points; 0 for the column that takes the remaining width. */
  width: number;
  align: "left" | "right";
  wraps?: boolean;
  /** A cell that lists several items (a line's taxes): one item per text line, each shrunk to fit. */
  splitsAt?: string;
}

const COLUMNS: Column[] = [
  { key: "position", title: "#", width: 20, align: "right" },
  { key: "code", title: "Código", width: 50, align: "left", wraps: true },
  { key: "description", title: "Descripción", width: 0, align: "left", wraps: true },
  { key: "quantity", title: "Cant.", width: 42, align: "right" },
  { key: "unit", title: "Unidad", width: 38, align: "left" },
  { key: "unitPrice", title: "Valor unitario", width: 78, align: "right" },
  // several taxes (IVA 19 % + INC bolsas $ 70,00 por Unidad): one per text line of the cell
  { key: "tax", title: "Impuesto", width: 52, align: "right", splitsAt: " + " },
  { key: "total", title: "Valor total", width: 82, align: "right" },
];
const SIZE = 7.8;
const LEADING = 9.4;
const PAD_X = 4;
const PAD_Y = 4;
const HEADER_HEIGHT = 16;

function layoutColumns(flow: Flow): (Column & { x: number; w: number })[] {
  const fixed = COLUMNS.reduce((sum, c) => sum + c.width, 0);
  let x = flow.frame.left;
  return COLUMNS.map((column) => {
    const w = column.width || flow.contentWidth - fixed;
    const placed = { ...column, x, w };
    x += w;
    return placed;
  });
}

export function drawLinesTable(kit: Kit, flow: Flow, m: DocumentPdfModel): void {
  const c = palette(kit.lib);
  const columns = layoutColumns(flow);
  const header = () => {
    const { page, y } = flow;
    kit.rect(page, {
      x: flow.frame.left,
      y: y - HEADER_HEIGHT,
      width: flow.contentWidth,
      height: HEADER_HEIGHT,
      fill: c.accent,
    });
    for (const col of columns) {
      const x = col.align === "right" ? col.x + col.w - PAD_X : col.x + PAD_X;
      kit.text(page, col.title, x, y - 10.8, { font: kit.bold, size: 7.2, color: c.white, align: col.align });
    }
    flow.y -= HEADER_HEIGHT;
  };
  flow.ensure(HEADER_HEIGHT + 2 * LEADING);
  header();

  m.lines.forEach((line, index) => {
    const cells = columns.map((col) =>
      col.wraps
        ? kit.wrap(line[col.key], kit.regular, SIZE, col.w - 2 * PAD_X)
        : col.splitsAt
          ? line[col.key].split(col.splitsAt).flatMap((item) => fitOrWrap(kit, item, col.w - 2 * PAD_X))
          : [line[col.key]],
    );
    const rows = Math.max(...cells.map((l) => l.length));
    // A row that fits on a fresh page is kept whole; a taller one (a description of many short
    // lines) flows on, a page's worth of its text lines at a time, so nothing is drawn off the page.
    flow.ensure(Math.min(rows * LEADING, pageRoom(flow) - 2 * LEADING) + 2 * PAD_Y, header);
    for (let from = 0; from < rows; ) {
      const fit = Math.max(1, Math.floor((flow.room() - 2 * PAD_Y) / LEADING));
      const to = Math.min(rows, from + fit);
      drawRowPart(kit, flow, columns, cells, from, to, index % 2 === 1);
      from = to;
      if (from < rows) {
        flow.newPage();
        header();
      }
    }
  });
  flow.y -= 14;
}

/** An item kept on one text line while it fits a little smaller (as a one-line cell shrinks), else wrapped. */
function fitOrWrap(kit: Kit, item: string, width: number): string[] {
  return kit.width(item, kit.regular, 6.5) <= width ? [item] : kit.wrap(item, kit.regular, SIZE, width);
}

/** About the room on a continuation page below its header (42 pt) and the table's; only decides
 * where a row taller than that starts. */
function pageRoom(flow: Flow): number {
  return flow.frame.top - 42 - HEADER_HEIGHT - flow.frame.bottom;
}

/** Text lines `from`–`to` of one table row, with its zebra band and its rule below. */
function drawRowPart(
  kit: Kit,
  flow: Flow,
  columns: (Column & { x: number; w: number })[],
  cells: string[][],
  from: number,
  to: number,
  zebra: boolean,
): void {
  const c = palette(kit.lib);
  const { page, y } = flow;
  const height = (to - from) * LEADING + 2 * PAD_Y;
  if (zebra)
    kit.rect(page, { x: flow.frame.left, y: y - height, width: flow.contentWidth, height, fill: c.zebra });
  columns.forEach((col, i) => {
    const x = col.align === "right" ? col.x + col.w - PAD_X : col.x + PAD_X;
    (cells[i] ?? []).slice(from, to).forEach((text, n) => {
      const size = col.wraps ? SIZE : fitSize(kit, text, kit.regular, SIZE, col.w - 2 * PAD_X);
      kit.text(page, text, x, y - PAD_Y - 7 - n * LEADING, {
        font: kit.regular,
        size,
        color: c.ink,
        align: col.align,
      });
    });
  });
  kit.line(page, [flow.frame.left, y - height], [flow.frame.right, y - height], c.rule, 0.4);
  flow.y -= height;
}

const TOTALS_WIDTH = 228;
const TOTAL_ROW = 15;
const GRAND_ROW = 22;
const TAX_ROW = 12;

/**
 * Tax breakdown (each tax by scheme and rate), the withholdings, and the amount in words on the
 * left; totals on the right; kept together on one page.
 */
export function drawSummary(kit: Kit, flow: Flow, m: DocumentPdfModel): void {
  const c = palette(kit.lib);
  const leftWidth = flow.contentWidth - TOTALS_WIDTH - 16;
  const words = m.amountInWords ? kit.wrap(m.amountInWords, kit.bold, 7.8, leftWidth - 8) : [];
  const tables = [
    { heading: "RESUMEN DE IMPUESTOS", rows: m.taxes },
    ...(m.withholdings.length ? [{ heading: "RETENCIONES", rows: m.withholdings }] : []),
  ];
  const leftHeight =
    tables.reduce((h, t) => h + 15 + (t.rows.length + 1) * TAX_ROW + 8, 0) +
    (words.length ? 12 + words.length * 9.5 : 0);
  const rowsHeight = m.totals.reduce((h, t) => h + (t.grand ? GRAND_ROW : TOTAL_ROW), 0);
  const rightHeight = rowsHeight + 14;
  flow.ensure(Math.max(leftHeight, rightHeight));
  const { page } = flow;
  const top = flow.y;
  const left = flow.frame.left;

  const cols: [string, number, "left" | "right"][] = [
    ["", left + 6, "left"],
    ["Tarifa", left + leftWidth * 0.5, "right"],
    ["Base", left + leftWidth * 0.75, "right"],
    ["Valor", left + leftWidth - 6, "right"],
  ];
  let y = top;
  for (const table of tables) {
    kit.rect(page, { x: left, y: y - 15, width: leftWidth, height: 15, fill: c.accentLight });
    kit.text(page, table.heading, left + 6, y - 10.5, { font: kit.bold, size: 7.5, color: c.accent });
    y -= 15 + 9.5;
    cols.forEach(([title, x, align], i) => {
      kit.text(page, i === 0 ? "Concepto" : title, x, y, {
        font: kit.bold,
        size: 7.3,
        color: c.muted,
        align,
      });
    });
    for (const tax of table.rows) {
      y -= TAX_ROW;
      [tax.name, tax.rate, tax.base, tax.amount].forEach((text, i) => {
        const [, x, align] = cols[i] as (typeof cols)[number];
        // a column is as wide as the gap to the one before it
        const room = i === 0 ? leftWidth * 0.25 : i === 1 ? leftWidth * 0.24 : leftWidth * 0.23;
        const size = fitSize(kit, text, kit.regular, 7.8, room);
        kit.text(page, text, x, y, { font: kit.regular, size, color: c.ink, align });
      });
    }
    y -= 6;
    kit.line(page, [left, y], [left + leftWidth, y], c.rule, 0.6);
    y -= 2;
  }
  if (words.length) {
    y -= 11;
    kit.text(page, "Valor en letras", left + 6, y, { font: kit.regular, size: 7.3, color: c.muted });
    for (const line of words) {
      y -= 9.5;
      kit.text(page, line, left + 6, y, { font: kit.bold, size: 7.8, color: c.ink });
    }
  }

  // totals
  const x = flow.frame.right - TOTALS_WIDTH;
  let ty = top;
  kit.rect(page, {
    x,
    y: top - rowsHeight,
    width: TOTALS_WIDTH,
    height: rowsHeight,
    stroke: c.rule,
    lineWidth: 0.8,
  });
  for (const total of m.totals) {
    if (total.grand) {
      kit.rect(page, { x, y: ty - GRAND_ROW, width: TOTALS_WIDTH, height: GRAND_ROW, fill: c.accent });
      kit.text(page, total.label, x + 8, ty - 14.5, { font: kit.bold, size: 9.5, color: c.white });
      const size = fitSize(kit, total.value, kit.bold, 11, TOTALS_WIDTH - 110);
      kit.text(page, total.value, x + TOTALS_WIDTH - 8, ty - 15, {
        font: kit.bold,
        size,
        color: c.white,
        align: "right",
      });
      ty -= GRAND_ROW;
      continue;
    }
    // a discount's or charge's reason may be long: cut to the room the value leaves
    const [label = ""] = kit.wrapAtMost(total.label, kit.regular, 8, TOTALS_WIDTH - 112, 1);
    kit.text(page, label, x + 8, ty - 10.5, { font: kit.regular, size: 8, color: c.ink });
    kit.text(page, total.value, x + TOTALS_WIDTH - 8, ty - 10.5, {
      font: kit.regular,
      size: fitSize(kit, total.value, kit.regular, 8.5, TOTALS_WIDTH - 120),
      color: c.ink,
      align: "right",
    });
    ty -= TOTAL_ROW;
  }
  kit.text(page, `Valores expresados en ${m.currency}`, x + TOTALS_WIDTH, ty - 10, {
    font: kit.regular,
    size: 6.8,
    color: c.muted,
    align: "right",
  });
  flow.y = Math.min(y, top - rightHeight) - 14;
}

/** The invoice's free-text notes, flowing across pages if long. */
export function drawNotes(kit: Kit, flow: Flow, notes: string): void {
  const c = palette(kit.lib);
  const lines = kit.wrap(notes, kit.regular, 8, flow.contentWidth);
  flow.ensure(12 + 2 * 10);
  kit.text(flow.page, "OBSERVACIONES", flow.frame.left, flow.y - 8, {
    font: kit.bold,
    size: 7.5,
    color: c.accent,
  });
  flow.y -= 20;
  for (const line of lines) {
    flow.ensure(10);
    kit.text(flow.page, line, flow.frame.left, flow.y, { font: kit.regular, size: 8, color: c.ink });
    flow.y -= 10;
  }
  flow.y -= 8;
}
