/**
 * The sandbox providers (docs/sandbox.md): adapter-tax, docsgen and deliver, and the DIAN stand-in
 * (./dian/), each a fetch handler usable in-process, plus the router that serves them together.
 * Local runs and tests only.
 */

export type { ReceivedLogEntry, SandboxFetch, SandboxOptions, SandboxService } from "./common.ts";
export {
  BOUNCE_DOMAIN,
  createSandboxDeliver,
  type MessageLogEntry,
  type SandboxDeliver,
  type SandboxDeliverOptions,
} from "./deliver.ts";
export {
  createDianStandIn,
  type DianCertificate,
  type DianIssuerEntry,
  type DianKnobs,
  type DianKnobsPatch,
  type DianRangeEntry,
  type DianRegistry,
  type DianRequestLogEntry,
  type DianSoftwareEntry,
  type DianStandIn,
  type DianStandInOptions,
  type DianTestSet,
} from "./dian/index.ts";
export {
  createSandboxDocsgen,
  DOCSGEN_SANDBOX_TITLE,
  type RenderLogEntry,
  SANDBOX_TEMPLATES,
  type SandboxDocsgen,
} from "./docsgen.ts";
export {
  DEFAULT_KNOBS,
  type FailRule,
  type SandboxKnobs,
  type SandboxKnobsPatch,
} from "./faults.ts";
export {
  type AdoptedOutcome,
  type AttachedDocumentLogEntry,
  createSandboxProvider,
  type SandboxProvider,
  type SandboxProviderOptions,
  type SubmissionLogEntry,
} from "./provider.ts";
export {
  createSandboxRouter,
  SANDBOX_PATHS,
  type SandboxRouterOptions,
  type SandboxServices,
} from "./router.ts";
export { type SandboxSigners, sandboxSigners } from "./signers.ts";
