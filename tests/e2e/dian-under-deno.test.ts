/**
 * The DIAN document builder and signer under Deno, the runtime the functions deploy to: it opens the
 * PKCS#12 (node-forge through `npm:`, as deno.json maps it) and signs with WebCrypto, and its bytes
 * are the very bytes Node produces from the same input, which xmlsec1 and xmllint accept.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { createTestCertificates } from "../../devkit/dian/certificates.ts";
import { dianCreditNote, dianInvoice } from "../../devkit/dian/documents.ts";
import { xmllintValidate, xmlsecVerify } from "../../devkit/dian/xml-tools.ts";
import { type SignJob, signJob } from "../dian/deno-sign.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

it("builds and signs under Deno the same bytes as under Node, and they verify and validate", async () => {
  const certs = createTestCertificates({ algorithm: "3des" });
  const invoice = dianInvoice(20);
  const job: SignJob = {
    p12Base64: Buffer.from(certs.p12).toString("base64"),
    password: certs.password,
    inputs: [invoice, dianCreditNote(invoice, "c".repeat(96), true)],
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
    const [invoiceXml = "", noteXml = ""] = underDeno.map((b64) => Buffer.from(b64, "base64"));
    expect((await xmlsecVerify(invoiceXml as Uint8Array, certs.caPem)).ok).toBe(true);
    expect((await xmlsecVerify(noteXml as Uint8Array, certs.caPem)).ok).toBe(true);
    expect((await xmllintValidate(invoiceXml as Uint8Array, "invoice")).ok).toBe(true);
    expect((await xmllintValidate(noteXml as Uint8Array, "credit_note")).ok).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
