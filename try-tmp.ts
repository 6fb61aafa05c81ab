import { createTestCertificates } from "./devkit/dian/certificates.ts";
import { dianInvoice } from "./devkit/dian/documents.ts";
import { openPkcs12 } from "./shared/fiscal/co/dian/certificate.ts";
import { buildSignedDocument } from "./shared/fiscal/co/dian/document.ts";
import { buildUnsignedDocument } from "./shared/fiscal/co/dian/ubl.ts";
import { canonical } from "./shared/fiscal/co/dian/xml.ts";
const certs = createTestCertificates();
const signer = await openPkcs12(certs.p12, certs.password);
const inputs = Array.from({ length: 60 }, () => dianInvoice(20));
const time = async (label: string, f: (i: number) => Promise<unknown>) => {
  const ts: number[] = [];
  for (let i = 0; i < 60; i++) { const t = performance.now(); await f(i); ts.push(performance.now() - t); }
  ts.sort((a, b) => a - b); console.log(label, ts[30]!.toFixed(2), ts[5]!.toFixed(2));
};
await time("full", (i) => buildSignedDocument(inputs[i]!, signer));
await time("unsigned", (i) => buildUnsignedDocument(inputs[i]!));
const u = await buildUnsignedDocument(inputs[0]!);
await time("canonical", async () => canonical(u.root, u.namespaces));
const data = new TextEncoder().encode("x".repeat(2000));
await time("rsa", () => crypto.subtle.sign("RSASSA-PKCS1-v1_5", signer.privateKey, data));
await time("full", (i) => buildSignedDocument(inputs[i]!, signer));
