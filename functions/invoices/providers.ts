/** The provider directory for one request, built from the app's dependencies. */
import type { OperationContext } from "../../shared/http/route.ts";
import { createProviderDirectory, type ProviderDirectory } from "../../shared/providers/directory.ts";

export function providerDirectory({ deps, serviceDb }: OperationContext): ProviderDirectory {
  return createProviderDirectory({
    serviceDb,
    secretBox: deps.secretBox,
    timeoutMs: deps.config.providers.timeoutMs,
    allowPrivateUrls: deps.config.providers.allowPrivateUrls,
    ...(deps.providerFetch ? { fetch: deps.providerFetch } : {}),
  });
}
