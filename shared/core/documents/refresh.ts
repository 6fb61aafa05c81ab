/**
 * refreshDocument: asks the provider what the authority decided about a document that was sent and
 * records it. Nothing changes when the provider cannot answer (the typed provider error becomes a
 * 502/504), and a document a transmission holds right now is left to that transmission.
 */

import { BusyError, InvalidStateError } from "../../kernel/errors.ts";
import type { AuthorityRule, RefreshCode } from "../../kernel/result-codes.ts";
import type { DocumentKind, DocumentPayloads, FiscalStatus, RecordedOutcome } from "../../kernel/rows.ts";
import { callAuthorized, type DbScope } from "../../ports/db/port.ts";
import type { ProviderDirectory } from "../../ports/providers/directory.ts";
import type { DocumentOutcome } from "../../ports/providers/protocol.ts";
import type { DocumentKindSpec } from "./kind.ts";
import { lookupOf } from "./lookup.ts";
import { neverReceived, outcomeFromProvider, storable } from "./outcome.ts";

export interface RefreshInput {
  org_id: string;
  document_id: string;
}

export interface RefreshResult {
  document_id: string;
  status: Exclude<FiscalStatus, "pendiente">;
  code: RefreshCode;
  message: string;
  /** The authority's own message and rules, when the provider answered with them. */
  authority_message?: string;
  authority_rules?: AuthorityRule[];
  authority_code: string | null;
  checked_at: string;
}

export interface RefreshContext {
  serviceDb: DbScope;
  providers: ProviderDirectory;
  actorId: string | null;
}

export async function refreshDocument<K extends DocumentKind>({
  ctx,
  kind,
  input,
}: {
  ctx: RefreshContext;
  kind: DocumentKindSpec<K>;
  input: RefreshInput;
}): Promise<RefreshResult> {
  // The document and the adapter-tax credential it is queried with, in one round trip; behind a
  // request's gate, the caller's membership is checked in the same one.
  const { record, credentials } = await callAuthorized(
    ctx.serviceDb,
    "einv_document_get_with_credentials_authorized",
    {
      p_org_id: input.org_id,
      p_kind: kind.kind,
      p_document_id: input.document_id,
      p_service: "adapter-tax",
    },
  );
  const { status, environment, in_flight } = record.fiscal;
  const { noun } = kind.words;
  if (status === "descartada") {
    throw new InvalidStateError(`This ${noun} was replaced by a later one and is no longer followed.`);
  }
  if (status === "pendiente" || !environment) {
    throw new InvalidStateError(`This ${noun} was never sent; transmit it first.`);
  }
  if (in_flight) throw new BusyError(`A transmission of this ${noun} is in progress; try again shortly.`);

  const companyId = record.document.company_id;
  ctx.providers.prime("adapter-tax", input.org_id, [{ company_id: companyId, environment }], credentials);
  const adapter = await ctx.providers.taxAdapter(input.org_id, companyId, environment);
  const known = await adapter.query(
    input.document_id,
    lookupOf(kind, record.document as DocumentPayloads[K], environment, record.fiscal.provider_reference),
  );
  const recorded = await ctx.serviceDb.call("einv_document_refresh_record", {
    p_org_id: input.org_id,
    p_kind: kind.kind,
    p_document_id: input.document_id,
    p_expected_status: status,
    p_expected_attempt: record.fiscal.attempt_count,
    p_outcome: storable({
      ...toOutcome(kind, known, status),
      ...(ctx.actorId ? { actor_id: ctx.actorId } : {}),
    }),
  });
  const { document_id, code, message, authority_message, authority_rules, authority_code, checked_at } =
    recorded;
  return {
    document_id,
    status: recorded.status,
    code: code as RefreshCode,
    message,
    ...(authority_message === null ? {} : { authority_message }),
    ...(authority_rules?.length ? { authority_rules } : {}),
    authority_code,
    checked_at,
  };
}

function toOutcome(
  kind: DocumentKindSpec,
  known: DocumentOutcome | null,
  current: FiscalStatus,
): Partial<RecordedOutcome> {
  if (known) return outcomeFromProvider(kind, known);
  // Idle and unknown to the provider: it never arrived, so it can safely be sent again.
  if (current === "en_proceso") return neverReceived(kind);
  return {
    code: "unknown_to_provider",
    message: `the provider has no record of this ${kind.words.noun}; its status is unchanged`,
  };
}
