/**
 * A provider directory that imports the real one (./directory.ts: the adapters, their clients and
 * the protocol's schemas) only when a request first asks it for a client. Every operation is handed
 * a directory, and most never use it — a cached /representation, a list of events — so a cold
 * instance's first such call no longer loads the adapters (ADR 0007; `npm run bench` measures the
 * first authenticated call against its floor). `prime` is synchronous: rows primed before the import
 * are handed to the real directory, in order, before any client is asked of it.
 */
import type { ProviderDirectory } from "../ports/providers/directory.ts";

export function lazyProviderDirectory(load: () => Promise<ProviderDirectory>): ProviderDirectory {
  let loaded: ProviderDirectory | undefined;
  let loading: Promise<ProviderDirectory> | undefined;
  const primes: Parameters<ProviderDirectory["prime"]>[] = [];
  const directory = (): Promise<ProviderDirectory> => {
    if (loaded) return Promise.resolve(loaded);
    if (!loading) {
      const attempt = load().then((real) => {
        for (const args of primes.splice(0)) real.prime(...args);
        loaded = real;
        return real;
      });
      // a failed load is tried again by the next ask, with the primes kept (an import that failed
      // while evaluating fails the same way again: ES modules keep that error)
      attempt.catch(() => {
        if (loading === attempt) loading = undefined;
      });
      loading = attempt;
    }
    return loading;
  };
  return {
    taxAdapter: async (...args) => (await directory()).taxAdapter(...args),
    documentGenerator: async (...args) => (await directory()).documentGenerator(...args),
    deliveryChannel: async (...args) => (await directory()).deliveryChannel(...args),
    prime: (...args) => {
      if (loaded) loaded.prime(...args);
      else primes.push(args);
    },
  };
}
