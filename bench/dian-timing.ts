/**
 * DIAN mode's budget (DESIGN §7): building and signing a 20-line invoice, p50 ≤ 25 ms; and, with
 * no budget of its own, building and signing its AttachedDocument once DIAN has validated it. The
 * certificate is opened once beforehand, as a credential is (its key derivation is not per
 * document); each run builds the UBL, computes the CUFE and the security code, digests the three
 * references and signs with RSA-2048. Warm: the first runs (JIT, WebCrypto's first key use) are not
 * counted. Runs on Node and Deno.
 */
import { cpuUsage } from "node:process";
import { createTestCertificates } from "../devkit/dian/certificates.ts";
import { dianInvoice } from "../devkit/dian/documents.ts";
import { sandboxApplicationResponse } from "../sandbox/application-response.ts";
import { createSandboxSigners } from "../sandbox/signers.ts";
import { buildAttachedDocument } from "../shared/fiscal/co/dian/attached-document.ts";
import { openPkcs12 } from "../shared/fiscal/co/dian/certificate.ts";
import { buildSignedDocument } from "../shared/fiscal/co/dian/document.ts";

export interface DianSigningTiming {
  lines: number;
  runs: number;
  p50Ms: number;
  p95Ms: number;
  /** Median process CPU time per document (steadier than wall time on a busy machine). */
  cpuMedianMs: number;
  bytes: number;
}

export async function measureDianSigning(lines = 20, runs = 50, warmup = 5): Promise<DianSigningTiming> {
  const certs = createTestCertificates();
  const signer = await openPkcs12(certs.p12, certs.password);
  const inputs = Array.from({ length: runs + warmup }, () => dianInvoice(lines));
  return timed(lines, runs, warmup, inputs, async (input) => (await buildSignedDocument(input, signer)).xml);
}

/**
 * Building and signing the AttachedDocument of a `lines`-line invoice DIAN validated: the document
 * and DIAN's (stand-in) ApplicationResponse are made beforehand, as they are when it is built.
 */
export async function measureAttachedDocument(lines = 20, runs = 50, warmup = 5): Promise<DianSigningTiming> {
  const signers = await createSandboxSigners();
  const inputs = [];
  for (let i = 0; i < runs + warmup; i++) {
    const { document, dian } = dianInvoice(lines);
    const signed = await buildSignedDocument({ document, dian }, signers.issuer);
    const applicationResponse = await sandboxApplicationResponse(
      document,
      {
        reference: document.reference,
        provider_reference: `bench-${i}`,
        status: "accepted",
        authority_code: signed.authorityCode,
        qr_text: signed.qrText,
        message: "Documento validado por la DIAN",
        validated_at: new Date().toISOString(),
      },
      signers.dian,
    );
    inputs.push({
      document: signed.xml,
      applicationResponse,
      facts: { ...document, authority_code: signed.authorityCode },
    });
  }
  return timed(lines, runs, warmup, inputs, (input) => buildAttachedDocument(input, signers.issuer));
}

async function timed<T>(
  lines: number,
  runs: number,
  warmup: number,
  inputs: T[],
  build: (input: T) => Promise<Uint8Array>,
): Promise<DianSigningTiming> {
  let bytes = 0;
  const times: number[] = [];
  const cpu: number[] = [];
  for (const [i, input] of inputs.entries()) {
    const before = cpuUsage();
    const start = performance.now();
    const xml = await build(input);
    const ms = performance.now() - start;
    const used = cpuUsage(before);
    bytes = xml.length;
    if (i < warmup) continue;
    times.push(ms);
    cpu.push((used.user + used.system) / 1000);
  }
  const at = (sorted: number[], q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    lines,
    runs,
    p50Ms: round(at(times, 0.5)),
    p95Ms: round(at(times, 0.95)),
    cpuMedianMs: round(at(cpu, 0.5)),
    bytes,
  };
}
