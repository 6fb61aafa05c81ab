/**
 * Writes signed sample DIAN documents to check by hand with xmlsec1 and xmllint (docs/dian.md):
 * a generated test CA and company certificate, a 20-line invoice, a partial and a whole credit note,
 * and the invoice's AttachedDocument, holding the invoice and an ApplicationResponse signed by the
 * sandbox's stand-in "DIAN" (its own CA: dian-ca.pem).
 *
 *   deno run --allow-all scripts/dian/sample.ts [folder]     (default .data/dian-sample)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { createTestCertificates } from "../../devkit/dian/certificates.ts";
import { dianCreditNote, dianInvoice, signedAtIssue } from "../../devkit/dian/documents.ts";
import { sandboxApplicationResponse } from "../../sandbox/application-response.ts";
import { createSandboxSigners } from "../../sandbox/signers.ts";
import { buildAttachedDocument } from "../../shared/providers/dian/attached-document.ts";
import { openPkcs12 } from "../../shared/providers/dian/certificate.ts";
import { buildSignedDocument } from "../../shared/providers/dian/document.ts";

const folder = process.argv[2] ?? ".data/dian-sample";
mkdirSync(folder, { recursive: true });
const certs = createTestCertificates();
const signer = await openPkcs12(certs.p12, certs.password);
const invoice = dianInvoice(20);
const signed = await buildSignedDocument(invoice, signer, signedAtIssue(invoice));
const dian = await createSandboxSigners();
const applicationResponse = await sandboxApplicationResponse(
  invoice.document,
  {
    reference: invoice.document.reference,
    provider_reference: "sample",
    status: "accepted",
    authority_code: signed.authorityCode,
    qr_text: signed.qrText,
    message: "Documento validado por la DIAN",
    validated_at: new Date().toISOString(),
  },
  dian.dian,
);
/** The fixtures are signed a minute after their issue instant, on their issue date (FAD09e/CAD09e). */
function signedNote(partial: boolean) {
  const note = dianCreditNote(invoice, signed.authorityCode, partial);
  return buildSignedDocument(note, signer, signedAtIssue(note));
}
const files: Record<string, Uint8Array | string> = {
  "ca.pem": certs.caPem,
  "certificate.pem": certs.certificatePem,
  "dian-ca.pem": dian.pem.ca,
  "invoice.xml": signed.xml,
  "credit-note-partial.xml": (await signedNote(true)).xml,
  "credit-note-whole.xml": (await signedNote(false)).xml,
  "attached-document.xml": await buildAttachedDocument(
    {
      document: signed.xml,
      applicationResponse,
      facts: { ...invoice.document, authority_code: signed.authorityCode },
    },
    signer,
  ),
};
for (const [name, content] of Object.entries(files)) writeFileSync(join(folder, name), content);
console.log(`${Object.keys(files).join(", ")} written to ${folder}`);
