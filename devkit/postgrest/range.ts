/**
 * Row ranges as src/PostgREST/RangeQuery.hs and ApiRequest.hs `getRanges` (v14.17, 064e5fea) compute
 * them: `limit`/`offset` and the `Range` header intersected, `limit=0` kept as the special range
 * 0…-1, Supabase's `max-rows` applied to every level, and `Content-Range` with the status it implies.
 */
import { errors } from "./errors.ts";

/** Rows `lo` to `hi` (inclusive), `hi` possibly infinite; empty when `hi < lo`. */
export interface Range {
  lo: number;
  hi: number;
}

export const ALL: Range = { lo: 0, hi: Number.POSITIVE_INFINITY };
/** `limitZeroRange`: 0 <= x <= -1, the one empty range PostgREST accepts (`limit=0`). */
export const LIMIT_ZERO: Range = { lo: 0, hi: -1 };

export const isEmpty = (r: Range) => r.hi < r.lo;
export const isAll = (r: Range) => r.lo === 0 && r.hi === Number.POSITIVE_INFINITY;
export const hasLimitZero = (r: Range) => r.hi === -1;

export function intersect(a: Range, b: Range): Range {
  return { lo: Math.max(a.lo, b.lo), hi: Math.min(a.hi, b.hi) };
}

/** `restrictRange (Just n)`: at most `n` rows from the range's offset. */
export function limited(r: Range, n: number): Range {
  return intersect(r, { lo: Number.NEGATIVE_INFINITY, hi: r.lo + n - 1 });
}

export const startingAt = (n: number): Range => ({ lo: n, hi: Number.POSITIVE_INFINITY });

/** `rangeParse` of a `Range: 0-9` header (anything else is every row). */
export function parseRangeHeader(value: string | null): Range {
  const match = /^([0-9]+)-([0-9]*)$/.exec(value ?? "");
  if (!match) return ALL;
  const upper = match[2] === "" ? Number.POSITIVE_INFINITY : Number(match[2]);
  return intersect(startingAt(Number(match[1])), { lo: Number.NEGATIVE_INFINITY, hi: upper });
}

/**
 * ApiRequest.hs `getRanges`: the root's range from `limit`/`offset` and, for GET, the `Range`
 * header; 416 PGRST103 for an empty one that is not `limit=0`, PGRST114 for any range on PUT.
 */
export function topLevelRange(
  method: string,
  queryRanges: Map<string, Range>,
  rangeHeader: string | null,
): Range {
  const header = method === "GET" ? parseRangeHeader(rangeHeader) : ALL;
  const limit = queryRanges.get("limit") ?? ALL;
  const top = hasLimitZero(limit) ? LIMIT_ZERO : intersect(header, limit);
  if (isEmpty(top) && !hasLimitZero(limit)) {
    throw errors.invalidRange(
      isEmpty(header)
        ? "The lower boundary must be lower than or equal to the upper boundary in the Range header."
        : "Limit should be greater than or equal to zero.",
    );
  }
  if (method === "PUT" && !isAll(top)) throw errors.putLimit();
  return top;
}

/** Plan.hs `treeRestrictRange`: `max-rows` on a level (limit=0 stays so). */
export function restrictToMaxRows(r: Range, maxRows: number): Range {
  return hasLimitZero(r) ? LIMIT_ZERO : limited(r, maxRows);
}

/** SqlFragment.hs `limitOffsetF`, with the numbers as literals (they are integers we computed). */
export function limitOffset(r: Range): string {
  if (isAll(r)) return "";
  const limit = r.hi === Number.POSITIVE_INFINITY ? "ALL" : String(Math.max(0, r.hi - r.lo + 1));
  return `LIMIT ${limit} OFFSET ${r.lo}`;
}

/** RangeQuery.hs `rangeStatusHeader`: the status and `Content-Range` of a read. */
export function rangeStatus(top: Range, queryTotal: number, tableTotal: number | null): [number, string] {
  const lower = top.lo;
  const upper = lower + queryTotal - 1;
  const status =
    tableTotal === null ? 200 : lower > tableTotal ? 416 : 1 + upper - lower < tableTotal ? 206 : 200;
  return [status, contentRange(lower, upper, tableTotal)];
}

/** RangeQuery.hs `contentRangeH`. */
export function contentRange(lower: number, upper: number, total: number | null): string {
  const range = total !== 0 && lower <= upper ? `${lower}-${upper}` : "*";
  return `${range}/${total === null ? "*" : total}`;
}
