/**
 * What the integration operations take: the service's database scope (credentials are service-only),
 * the SecretBox, the provider egress, the provider timeout, whether local development allows private
 * URLs, DIAN's GetNumberingRange (DIAN mode), who is acting, and a logger. `integrationContext` picks them out of an operation's context.
 */
import type { SecretBox } from "../../crypto/secret-box.ts";
import type { Logger } from "../../kernel/log.ts";
import type { DbScope } from "../../ports/db/port.ts";
import type { Egress } from "../../ports/egress/egress.ts";
import type { ProviderService } from "../../ports/providers/errors.ts";
import type { Environment } from "../../ports/providers/protocol.ts";
import type { DianNumbering } from "../../providers/dian/numbering-query.ts";

export interface IntegrationContext {
  serviceDb: DbScope;
  secretBox: SecretBox;
  egress: Egress;
  timeoutMs: number;
  allowPrivateUrls: boolean;
  /** DIAN's GetNumberingRange, for DIAN mode's check. */
  dianNumbering: DianNumbering;
  /** The admin acting, for events. */
  actorId: string;
  log: Logger;
  now?: () => Date;
}

/** One credential: a company's key for one provider service in one environment. */
export interface CredentialTarget {
  org_id: string;
  company_id: string;
  service: ProviderService;
  environment: Environment;
}

/** The parts of a route's operation context the integration operations use. */
interface OperationParts {
  serviceDb: DbScope;
  actorId: string;
  log: Logger;
  deps: {
    secretBox: SecretBox;
    egress: Egress;
    dianNumbering: DianNumbering;
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
    dianNumbering: op.deps.dianNumbering,
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
