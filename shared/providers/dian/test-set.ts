/**
 * SendTestSetAsync's answer in habilitación: DIAN took the one-document batch (its ZipKey, to ask
 * GetStatusZip with; ./outcome.ts `batchOutcome` reads that answer) or says why it took nothing
 * ([D] WcfDianCustomerServices.SendTestSetAsync: production, no test set id, no NIT in the
 * certificate, a ZIP without XML). Our words English, DIAN's kept.
 */
import type { RuleViolation } from "../../ports/providers/protocol.ts";
import type { UploadDocumentResponse } from "./answers.ts";
import { dianError, malformedAnswer as malformed } from "./failures.ts";
import { cut, MAX_RULE_MESSAGE } from "./rules.ts";

/** SendTestSetAsync's answer: the batch's ZipKey to ask GetStatusZip with, or why DIAN took nothing. */
export type UploadOutcome =
  | { status: "pending"; zipKey: string; message: string }
  | { status: "rejected"; message: string; authorityMessage: string; rules: RuleViolation[] };

/** SendTestSetAsync's answer. Throws a ProviderError when DIAN's service failed. */
export function uploadOutcome(upload: UploadDocumentResponse): UploadOutcome {
  if (upload.zipKey) {
    if (!/^[0-9a-fA-F-]{32,36}$/.test(upload.zipKey))
      throw malformed("SendTestSetAsync", "a ZipKey that is not a GUID");
    return {
      status: "pending",
      zipKey: upload.zipKey,
      message: "DIAN took the test set batch; its result comes from GetStatusZip.",
    };
  }
  const words = upload.errors
    .map((e) => e.processedMessage ?? "")
    .filter((w) => w !== "")
    .join(" ");
  if (/ha ocurrido un error/i.test(words)) {
    throw dianError("SendTestSetAsync", {
      type: "status",
      statusCode: "",
      description: words,
      unavailable: true,
    });
  }
  if (words === "") throw malformed("SendTestSetAsync", "neither a ZipKey nor a reason");
  const message = /producci[oó]n/i.test(words)
    ? "DIAN refused the test set batch: SendTestSetAsync is for habilitación only; in production send documents with SendBillSync."
    : /set de pruebas/i.test(words)
      ? "DIAN refused the test set batch: the test set id is missing (the credential's settings.test_set_id)."
      : /certificado/i.test(words)
        ? "DIAN refused the test set batch: the certificate does not carry the company's NIT where DIAN reads it."
        : "DIAN refused the test set batch (see authority_message).";
  return {
    status: "rejected",
    message,
    authorityMessage: words,
    rules: [{ code: "DIAN", kind: "rechazo", message: cut(words, MAX_RULE_MESSAGE) }],
  };
}
