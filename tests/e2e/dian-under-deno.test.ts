/**
 * The DIAN document builder and signer under Deno, the runtime the functions deploy to: it opens the
 * PKCS#12 (node-forge through `npm:`, as deno.json maps it) and signs with WebCrypto, and its bytes
 * — the documents and their AttachedDocuments, ApplicationResponse read with @xmldom/xmldom — are
 * the very bytes Node produces from the same input, which xmlsec1 and xmllint accept.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { createTestCertificates } from "../../devkit/dian/certificates.ts";
import { dianCreditNote, dianInvoice, signedAtIssue } from "../../devkit/dian/documents.ts";
import { embeddedDocuments, xmllintValidate, xmlsecVerify } from "../../devkit/dian/xml-tools.ts";
import { sandboxApplicationResponse } from "../../sandbox/application-response.ts";
import { createSandboxSigners } from "../../sandbox/signers.ts";
import { buildSignedDocument } from "../../shared/providers/dian/document.ts";
import type { DianDocumentInput } from "../../shared/providers/dian/input.ts";
import { type SignJob, signJob } from "../dian/deno-sign.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

it("builds and signs under Deno the same bytes as under Node, and they verify and validate", async () => {
  const certs = createTestCertificates({ algorithm: "3des" });
  const invoice = dianInvoice(20);
  const note = dianCreditNote(invoice, "c".repeat(96), true);
  // DIAN's (stand-in's) validation of each, signed by a "DIAN" certificate of another CA
  const dian = await createSandboxSigners();
  const response = async (input: DianDocumentInput) => {
    const { authorityCode } = await buildSignedDocument(input, dian.issuer, signedAtIssue(input));
    const bytes = await sandboxApplicationResponse(
      input.document,
      {
        reference: input.document.reference,
        provider_reference: "dian-deno",
        status: "accepted",
        authority_code: authorityCode,
        qr_text: "-",
        message: "Documento validado por la DIAN",
        validated_at: "2026-11-21T14:15:16.000Z",
      },
      dian.dian,
    );
    return Buffer.from(bytes).toString("base64");
  };
  const job: SignJob = {
    p12Base64: Buffer.from(certs.p12).toString("base64"),
    password: certs.password,
    inputs: [invoice, note],
    attached: [
      { index: 0, applicationResponse: await response(invoice) },
      { index: 1, applicationResponse: await response(note) },
    ],
  };
  const dir = mkdtempSync(join(tmpdir(), "einv-dian-deno-"));
  try {
    const path = join(dir, "job.json");
    writeFileSync(path, JSON.stringify(job));
    const { stdout } = await promisify(execFile)(
      `${ROOT}node_modules/.bin/deno`,
      [
        "eval",
        `const { signJob } = await import("./tests/dian/deno-sign.ts"); console.log(JSON.stringify(await signJob(${JSON.stringify(path)})));`,
      ],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DENO_NO_UPDATE_CHECK: "1" },
      },
    );
    const underDeno = JSON.parse(stdout) as string[];
    expect(underDeno).toEqual(await signJob(path));
    expect(underDeno).toHaveLength(4);
    const [invoiceXml, noteXml, invoiceAd, noteAd] = underDeno.map(
      (b64) => new Uint8Array(Buffer.from(b64, "base64")),
    ) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
    expect((await xmlsecVerify(invoiceXml, certs.caPem)).ok).toBe(true);
    expect((await xmlsecVerify(noteXml, certs.caPem)).ok).toBe(true);
    expect((await xmllintValidate(invoiceXml, "invoice")).ok).toBe(true);
    expect((await xmllintValidate(noteXml, "credit_note")).ok).toBe(true);
    for (const [container, document] of [
      [invoiceAd, invoiceXml],
      [noteAd, noteXml],
    ] as const) {
      expect((await xmlsecVerify(container, certs.caPem)).ok).toBe(true);
      expect((await xmllintValidate(container, "attached_document")).ok).toBe(true);
      const embedded = await embeddedDocuments(container);
      expect(Buffer.from(embedded.document)).toEqual(Buffer.from(document));
      expect((await xmlsecVerify(embedded.applicationResponse, dian.pem.ca)).ok).toBe(true);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
