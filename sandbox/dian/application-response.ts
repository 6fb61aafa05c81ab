/**
 * The ApplicationResponse "DIAN" signs for every document it validates or rejects ([D]
 * `Gosocket.Dian.Services/Utils/XmlUtils.cs`; [F] the ApplicationResponses inside Odoo's
 * GetStatus_invoice.xml and SendBillSync_duplicated.xml): built by the sandboxes' one builder
 * (../application-response.ts) with the document's rules as its LineResponses — or, for a validated
 * document without any, DIAN's approval sentence — and signed with the stand-in's "DIAN" certificate,
 * so xmlsec1 verifies it against the stand-in's DIAN CA. Building an answer may reuse our own code;
 * only checking what arrives must not.
 */
import type { Signer } from "../../shared/providers/dian/certificate.ts";
import { signedApplicationResponse } from "../application-response.ts";
import type { ReceivedDocument } from "./document.ts";
import { checkDigit, type RuleFinding } from "./rules.ts";

/** "La Factura electrónica SETP990000002, ha sido autorizada." ([F] StatusMessage). */
export function approvedMessage(doc: ReceivedDocument): string {
  const name = {
    invoice: "Factura electrónica",
    credit_note: "Nota Crédito electrónica",
    debit_note: "Nota Débito electrónica",
  };
  return `La ${name[doc.kind]} ${doc.id}, ha sido autorizada.`;
}

/** Builds and signs the ApplicationResponse for `doc` with its `findings`; the bytes to base64. */
export function applicationResponse(
  doc: ReceivedDocument,
  findings: RuleFinding[],
  signer: Signer,
  environment: "habilitacion" | "produccion",
  now: Date,
): Promise<Uint8Array> {
  const rejected = findings.some((f) => !f.notification);
  return signedApplicationResponse(
    {
      environment: environment === "produccion" ? "prd" : "uat",
      document: { kind: doc.kind, number: doc.id, key: doc.uuid },
      issuer: { name: doc.supplier.name, nit: doc.supplier.id, checkDigit: checkDigit(doc.supplier.id) },
      rejected,
      lines:
        findings.length === 0
          ? [{ code: "0", message: approvedMessage(doc) }]
          : findings.map((f) => ({ code: f.code, message: f.message })),
      at: now,
      seed: `${doc.uuid}|${now.toISOString()}|${findings.length}`,
    },
    signer,
  );
}
