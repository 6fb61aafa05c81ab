/**
 * The local run's sandbox keeps the authority's books in memory, so at every start it is told what
 * the database says the authority holds: each invoice and credit note sent through this server's
 * sandbox adapter-tax that is accepted (`transmitida`, `emitida`), or `en_proceso` with a provider
 * reference, is adopted with the request the service builds for it (the document as the database
 * API returns it, issuer frozen at its claim, prepared by its kind as a transmission prepares it) and
 * the outcome on record. It can then be refreshed, reconciled, rendered and delivered like one sent
 * since the start. An accepted document without its authority code and QR text (the seed's: SQL
 * cannot stamp) is stamped by the sandbox, and the CUFE/CUDE and QR text are recorded through the
 * service's own status-query writer, as a refresh would; invoices go first, so a note's billing
 * reference carries its invoice's code. Reads the candidates as the database owner; writes only
 * through the service.
 */
import type { AdoptedOutcome, SandboxProvider } from "../../sandbox/index.ts";
import type { DocumentKindSpec } from "../../shared/core/documents/kind.ts";
import { outcomeFromProvider, storable } from "../../shared/core/documents/outcome.ts";
import { DOCUMENT_KIND_SPECS } from "../../shared/core/kinds.ts";
import type { SqlClient } from "../../shared/db/sql-client.ts";
import type { FiscalRow } from "../../shared/kernel/rows.ts";
import type { Db } from "../../shared/ports/db/port.ts";

/** Invoices first (the map's order): a note's payload carries its invoice's authority code. */
const KINDS = Object.values(DOCUMENT_KIND_SPECS) as unknown as DocumentKindSpec[];

export interface AdoptionReport {
  adopted: number;
  /** Accepted documents the sandbox stamped, whose code was recorded now. */
  stamped: number;
  /** Documents left out, with the reason. */
  skipped: string[];
}

export async function adoptSandboxDocuments(
  client: SqlClient,
  db: Db,
  sandbox: Pick<SandboxProvider, "adopt">,
  adapterTaxUrl: string,
): Promise<AdoptionReport> {
  const service = db.asService();
  const report: AdoptionReport = { adopted: 0, stamped: 0, skipped: [] };
  for (const kind of KINDS) {
    for (const { org_id, id } of await held(client, kind, adapterTaxUrl)) {
      // one document that cannot be adopted is reported, and never stops the start
      const why = await adoptOne(kind, org_id, id).catch((error: unknown) =>
        error instanceof Error ? error.message : String(error),
      );
      if (why) report.skipped.push(`${kind.words.noun} ${id}: ${why}`);
    }
  }
  return report;

  /** Adopts one document (recording the codes it was stamped with); answers why not, if not. */
  async function adoptOne(kind: DocumentKindSpec, orgId: string, id: string): Promise<string | undefined> {
    const where = { p_org_id: orgId, p_kind: kind.kind, p_document_id: id };
    const { document, fiscal } = await service.call("einv_document_get", where);
    const adopted = toAdopted(kind, fiscal);
    const prepared = fiscal.environment ? await kind.prepare(document, fiscal.environment) : null;
    if (prepared && !prepared.ok) return prepared.problems.join("; ");
    if (!adopted || !prepared) return "its fiscal record is incomplete";
    const outcome = await sandbox.adopt(prepared.request, adopted);
    report.adopted++;
    if (outcome.status === "accepted" && (!fiscal.authority_code || !fiscal.qr_text)) {
      await service.call("einv_document_refresh_record", {
        ...where,
        p_expected_status: fiscal.status,
        p_expected_attempt: fiscal.attempt_count,
        p_outcome: storable(outcomeFromProvider(kind, outcome)),
      });
      report.stamped++;
    }
    return undefined;
  }
}

/** The documents of `kind` the authority holds by the database, sent through `adapterTaxUrl`. */
function held(client: SqlClient, kind: DocumentKindSpec, adapterTaxUrl: string) {
  return client.transaction(async (s) => {
    const [{ table } = { table: "" }] = await s.query<{ table: string }>(
      "select einv_private.kind_table($1) as table",
      [kind.kind],
    );
    return s.query<{ org_id: string; id: string }>(
      `select d.org_id, d.id from ${table} d
        where d.provider_reference is not null
          and (d.status = $1 or d.status = 'en_proceso')
          and exists (select 1 from einv_private.credentials c
                       where c.company_id = d.company_id and c.service = 'adapter-tax'
                         and c.environment = d.environment and rtrim(c.url, '/') = $2)
        order by d.id`,
      [kind.accepted, adapterTaxUrl],
    );
  });
}

/** The outcome on record, as the sandbox adopts it; null when the record cannot say. */
function toAdopted(kind: DocumentKindSpec, fiscal: FiscalRow): AdoptedOutcome | null {
  const provider_reference = fiscal.provider_reference;
  if (!provider_reference) return null;
  if (fiscal.status === "en_proceso") return { provider_reference, status: "pending" };
  if (fiscal.status !== kind.accepted) return null;
  const validated_at = new Date(fiscal.transmitted_at ?? Date.now()).toISOString();
  const { authority_code, qr_text } = fiscal;
  // without both (the seed's), the sandbox stamps it
  if (!authority_code || !qr_text) return { provider_reference, status: "accepted", validated_at };
  return { provider_reference, status: "accepted", authority_code, qr_text, validated_at };
}
