/**
 * The protocol providers' credential check (docs/provider-protocol.md, `GET credentials/check`): does
 * this API key authenticate? The port's `protocolKey` (../ports/providers/credentials.ts). The url
 * has been through the policy and the egress already; the key never appears in a message (the
 * transport cuts it out of whatever the provider says).
 */
import type { CredentialChecks } from "../ports/providers/credentials.ts";
import { createProviderTransport } from "./transport.ts";

export const protocolKeyCheck: CredentialChecks["protocolKey"] = async (target, call) => {
  const transport = createProviderTransport(target.service, "integrations", {
    baseUrl: call.base.href,
    apiKey: call.apiKey,
    timeoutMs: call.timeoutMs,
    fetch: call.fetch,
  });
  const check = await transport.checkCredential();
  return {
    ok: check.ok,
    message: check.message,
    ...(check.providerMessage ? { providerMessage: check.providerMessage } : {}),
  };
};
