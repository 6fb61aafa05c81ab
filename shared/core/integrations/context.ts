/**
 * `integrationContext` picks what the integration operations take (../../ports/providers/credentials.ts
 * `IntegrationContext`) out of a route's operation context: the service's database scope
 * (credentials are service-only), the SecretBox, the provider egress and timeout, whether local
 * development allows private URLs, the adapters' credential checks, who is acting, and a logger.
 */
import type { SecretBox } from "../../crypto/secret-box.ts";
import type { Logger } from "../../kernel/log.ts";
import type { DbScope } from "../../ports/db/port.ts";
import type { Egress } from "../../ports/egress/egress.ts";
import type {
  CredentialChecks,
  CredentialTarget,
  IntegrationContext,
} from "../../ports/providers/credentials.ts";

/** The parts of a route's operation context the integration operations use. */
interface OperationParts {
  serviceDb: DbScope;
  actorId: string;
  log: Logger;
  deps: {
    secretBox: SecretBox;
    egress: Egress;
    credentialChecks: CredentialChecks;
    config: { providers: { timeoutMs: number; allowPrivateUrls: boolean } };
  };
}

export function integrationContext(op: OperationParts): IntegrationContext {
  return {
    serviceDb: op.serviceDb,
    secretBox: op.deps.secretBox,
    egress: op.deps.egress,
    timeoutMs: op.deps.config.providers.timeoutMs,
    allowPrivateUrls: op.deps.config.providers.allowPrivateUrls,
    checks: op.deps.credentialChecks,
    actorId: op.actorId,
    log: op.log,
  };
}

/** The database API's arguments that name a credential. */
export function credentialWhere(target: CredentialTarget) {
  return {
    p_org_id: target.org_id,
    p_company_id: target.company_id,
    p_service: target.service,
    p_environment: target.environment,
  };
}
