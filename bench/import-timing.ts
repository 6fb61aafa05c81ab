/**
 * Run by bench/cold-start.ts in a fresh `deno run`: imports each module given, in order, and prints
 * how long each import took (loading and evaluating what it adds to what is already loaded), as JSON.
 */
export {};

const timings: { module: string; ms: number }[] = [];
for (const module of process.argv.slice(2)) {
  const t0 = performance.now();
  await import(module);
  timings.push({ module, ms: performance.now() - t0 });
}
console.log(JSON.stringify(timings));
process.exit(0);
