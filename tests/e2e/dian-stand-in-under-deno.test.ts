/**
 * The DIAN stand-in under Deno, as `npm start` runs it (only Node installed, no xmllint): an
 * envelope signed here by xmlsec1 is answered 00 there — node-forge, xml-crypto, @xmldom and
 * libxml2-wasm all run under Deno's Node compatibility.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { dianInvoice, signedAtIssue } from "../../devkit/dian/documents.ts";
import { openPkcs12 } from "../../shared/providers/dian/certificate.ts";
import { buildSignedDocument } from "../../shared/providers/dian/document.ts";
import { createTestCertificates, senderOf, soapRequest, zipBase64 } from "../support/dian-stand-in.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

it("validates a signed invoice under Deno and answers 00", async () => {
  const certs = createTestCertificates();
  const signer = await openPkcs12(certs.p12, certs.password);
  const input = dianInvoice(3);
  const { xml } = await buildSignedDocument(input, signer, signedAtIssue(input));
  const envelope = await soapRequest(senderOf(certs), "SendBillSync", {
    fileName: "invoice.zip",
    contentFile: zipBase64({ "invoice.xml": xml }),
  });
  const dir = mkdtempSync(join(tmpdir(), "einv-dian-deno-stand-in-"));
  try {
    const job = join(dir, "job.json");
    writeFileSync(job, JSON.stringify({ envelope, caPem: certs.caPem, nit: certs.nit }));
    const script = `
      import { readFileSync } from "node:fs";
      const { seededStandIn } = await import("./tests/support/dian-stand-in.ts");
      const job = JSON.parse(readFileSync(${JSON.stringify(job)}, "utf8"));
      const standIn = seededStandIn({ caPem: job.caPem, nit: job.nit });
      const response = await standIn.fetch("http://dian.local/WcfDianCustomerServices.svc", {
        method: "POST", headers: { "content-type": "application/soap+xml" }, body: job.envelope });
      console.log(JSON.stringify({ status: response.status, text: await response.text() }));`;
    const { stdout } = await promisify(execFile)(`${ROOT}node_modules/.bin/deno`, ["eval", script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DENO_NO_UPDATE_CHECK: "1" },
      maxBuffer: 16 * 1024 * 1024,
    });
    const answer = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as { status: number; text: string };
    expect(answer.status).toBe(200);
    expect(answer.text).toContain("<b:StatusCode>00</b:StatusCode>");
    expect(answer.text).toContain("<b:IsValid>true</b:IsValid>");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);
