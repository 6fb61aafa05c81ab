/**
 * A module imported the first time it is needed, then kept: `const builder = lazily(() =>
 * import("./document.ts"))`, `(await builder()).prepareInvoice(…)`. What a cold instance's first
 * request does not need stays out of its start (`npm run bench`: the cold start's imports). A failed
 * import is not kept, so the next call tries again.
 */
export function lazily<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
