/** Order statistics for the bench's samples. */
export const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
/** Nearest-rank percentile. */
export const pct = (xs: number[], q: number) =>
  sorted(xs)[Math.max(0, Math.ceil(q * xs.length) - 1)] ?? Number.NaN;
export const median = (xs: number[]) => pct(xs, 0.5);
export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
