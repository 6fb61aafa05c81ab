/**
 * Writes signed sample DIAN documents to check by hand with xmlsec1 and xmllint (docs/dian.md):
 * a generated test CA and company certificate, a 20-line invoice, a partial and a whole credit note.
 *
 *   deno run --allow-all scripts/dian/sample.ts [folder]     (default .data/dian-sample)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { createTestCertificates } from "../../devkit/dian/certificates.ts";
import { dianCreditNote, dianInvoice } from "../../devkit/dian/documents.ts";
import { openPkcs12 } from "../../shared/fiscal/co/dian/certificate.ts";
import { buildSignedDocument } from "../../shared/fiscal/co/dian/document.ts";

const folder = process.argv[2] ?? ".data/dian-sample";
mkdirSync(folder, { recursive: true });
const certs = createTestCertificates();
const signer = await openPkcs12(certs.p12, certs.password);
const invoice = dianInvoice(20);
const signed = await buildSignedDocument(invoice, signer);
const files: Record<string, Uint8Array | string> = {
  "ca.pem": certs.caPem,
  "certificate.pem": certs.certificatePem,
  "invoice.xml": signed.xml,
  "credit-note-partial.xml": (
    await buildSignedDocument(dianCreditNote(invoice, signed.authorityCode, true), signer)
  ).xml,
  "credit-note-whole.xml": (
    await buildSignedDocument(dianCreditNote(invoice, signed.authorityCode, false), signer)
  ).xml,
};
for (const [name, content] of Object.entries(files)) writeFileSync(join(folder, name), content);
console.log(`${Object.keys(files).join(", ")} written to ${folder}`);
