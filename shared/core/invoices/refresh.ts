/**
 * refreshInvoice: asks the provider what the authority decided about an invoice that was sent and
 * records it. Nothing changes when the provider cannot answer (the typed provider error becomes a
 * 502/504), and an invoice a transmission holds right now is left to that transmission.
 */
import type { DbScope, RecordedOutcome } from "../../db/port.ts";
import { InvalidStateError } from "../../errors.ts";
import type { ProviderDirectory } from "../../providers/directory.ts";
import type { DocumentOutcome } from "../../providers/protocol.ts";
import { outcomeFromProvider, storable } from "./transmit.ts";

export interface RefreshInput {
  org_id: string;
  invoice_id: string;
}

export interface RefreshResult {
  invoice_id: string;
  status: "en_proceso" | "transmitida" | "error";
  message: string;
  authority_code: string | null;
  checked_at: string;
}

export interface RefreshContext {
  serviceDb: DbScope;
  providers: ProviderDirectory;
  actorId: string | null;
}

export async function refreshInvoice({
  ctx,
  input,
}: {
  ctx: RefreshContext;
  input: RefreshInput;
}): Promise<RefreshResult> {
  const invoice = await ctx.serviceDb.call("einv_invoice_get", {
    p_org_id: input.org_id,
    p_invoice_id: input.invoice_id,
  });
  const { status, environment, in_flight } = invoice.fiscal;
  if (status === "pendiente" || !environment) {
    throw new InvalidStateError("This invoice was never sent; transmit it first.");
  }
  if (in_flight)
    throw new InvalidStateError("A transmission of this invoice is in progress; try again shortly.");

  const adapter = await ctx.providers.taxAdapter(input.org_id, invoice.document.company_id, environment);
  const known = await adapter.query(input.invoice_id);
  const recorded = await ctx.serviceDb.call("einv_refresh_record", {
    p_org_id: input.org_id,
    p_invoice_id: input.invoice_id,
    p_expected_status: status,
    p_expected_attempt: invoice.fiscal.attempt_count,
    p_outcome: storable({ ...toOutcome(known, status), ...(ctx.actorId ? { actor_id: ctx.actorId } : {}) }),
  });
  const { invoice_id, message, authority_code, checked_at } = recorded;
  return { invoice_id, status: recorded.status, message, authority_code, checked_at };
}

function toOutcome(known: DocumentOutcome | null, current: string): Partial<RecordedOutcome> {
  if (known) return outcomeFromProvider(known);
  if (current === "en_proceso") {
    // Idle and unknown to the provider: it never arrived, so it can safely be sent again.
    return {
      status: "error",
      message: "the provider never received this invoice; transmit it again with reissue: true",
    };
  }
  return { message: "the provider has no record of this invoice; its status is unchanged" };
}
