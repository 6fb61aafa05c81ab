/**
 * DIAN's SOAP envelope under Deno, the runtime the functions deploy to: opened and signed there
 * (WebCrypto, node-forge through `npm:`), each operation's envelope is byte for byte the one Node
 * builds from the same inputs, clock and Ids, and xmlsec1 verifies it.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { createTestCertificates } from "../../devkit/dian/certificates.ts";
import { xmlsecVerifyEnvelope } from "../../devkit/dian/xml-tools.ts";
import { type EnvelopeJob, envelopeJob } from "../dian/deno-envelope.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

it("builds and signs under Deno the same envelope bytes as under Node, and xmlsec1 verifies them", async () => {
  const certs = createTestCertificates({ algorithm: "3des" });
  const zip = "UEsDBBQAAAAIAA==";
  const job: EnvelopeJob = {
    p12Base64: Buffer.from(certs.p12).toString("base64"),
    password: certs.password,
    url: "https://vpfe-hab.dian.gov.co/WcfDianCustomerServices.svc",
    created: "2026-11-20T15:30:01.120Z",
    calls: [
      {
        operation: "SendBillSync",
        params: { fileName: "z09001234560002600000001.zip", contentFile: zip },
        id: "a1",
      },
      {
        operation: "SendTestSetAsync",
        params: {
          fileName: "z09001234560002600000002.zip",
          contentFile: zip,
          testSetId: "f2e50ee4-3dbd-4a72-8bb2-e66782ad36ff",
        },
        id: "a2",
      },
      { operation: "GetStatusZip", params: { trackId: "3b200a8e-6e89-47dc-8dff-97874a8ab286" }, id: "a3" },
      { operation: "GetStatus", params: { trackId: "ab".repeat(48) }, id: "a4" },
      {
        operation: "GetNumberingRange",
        params: {
          accountCode: "900123456",
          accountCodeT: "900123456",
          softwareCode: "56f2ae4e-9812-4fad-9255-08fcfcd5ccb0",
        },
        id: "a5",
      },
    ],
  };
  const dir = mkdtempSync(join(tmpdir(), "einv-dian-envelope-deno-"));
  try {
    const path = join(dir, "job.json");
    writeFileSync(path, JSON.stringify(job));
    const { stdout } = await promisify(execFile)(
      `${ROOT}node_modules/.bin/deno`,
      [
        "eval",
        `const { envelopeJob } = await import("./tests/dian/deno-envelope.ts"); console.log(JSON.stringify(await envelopeJob(${JSON.stringify(path)})));`,
      ],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DENO_NO_UPDATE_CHECK: "1" },
      },
    );
    const underDeno = JSON.parse(stdout) as string[];
    expect(underDeno).toHaveLength(job.calls.length);
    expect(underDeno).toEqual(await envelopeJob(path));
    for (const envelope of underDeno) {
      expect((await xmlsecVerifyEnvelope(new Uint8Array(Buffer.from(envelope, "base64")))).ok).toBe(true);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
