/**
 * DIAN mode's budget (DESIGN §7): building and signing a 20-line invoice, p50 ≤ 25 ms; and, with
 * no budget of its own, building and signing its AttachedDocument once DIAN has validated it. The
 * certificate is opened once beforehand, as a credential is (its key derivation is not per
 * document); each run builds the UBL, computes the CUFE and the security code, digests the three
 * references and signs with RSA-2048. Warm: the first runs (JIT, WebCrypto's first key use) are not
 * counted. Runs on Node and Deno.
 *
 * Beside it, without a budget: what sending that invoice adds before the network — zipping it and
 * building and signing SendBillSync's WS-Security envelope (exclusive c14n, one digest, one RSA
 * signature, the ZIP in base64).
 */
import { cpuUsage } from "node:process";
import { createTestCertificates } from "../devkit/dian/certificates.ts";
import { dianInvoice, signedAtIssue } from "../devkit/dian/documents.ts";
import { sandboxApplicationResponse } from "../sandbox/application-response.ts";
import { createSandboxSigners } from "../sandbox/signers.ts";
import { colombianTime } from "../shared/co/time.ts";
import {
  type AttachedDocumentInput,
  buildAttachedDocument,
} from "../shared/providers/dian/attached-document.ts";
import { openPkcs12 } from "../shared/providers/dian/certificate.ts";
import { buildSignedDocument } from "../shared/providers/dian/document.ts";
import { packDocument, submissionFiles } from "../shared/providers/dian/package.ts";
import { buildEnvelope } from "../shared/providers/dian/soap.ts";

export interface DianSigningTiming {
  lines: number;
  runs: number;
  p50Ms: number;
  p95Ms: number;
  /** Median process CPU time per run (steadier than wall time on a busy machine). */
  cpuMedianMs: number;
  /** Size of what one run makes: the signed XML, or the envelope. */
  bytes: number;
}

/** `work` run `warmup + runs` times in sequence; the last `runs` timed. */
async function timeRuns(
  lines: number,
  runs: number,
  warmup: number,
  work: (i: number) => Promise<number>,
): Promise<DianSigningTiming> {
  let bytes = 0;
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs + warmup; i++) {
    const before = cpuUsage();
    const start = performance.now();
    bytes = await work(i);
    const ms = performance.now() - start;
    const used = cpuUsage(before);
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

export async function measureDianSigning(lines = 20, runs = 50, warmup = 5): Promise<DianSigningTiming> {
  const certs = createTestCertificates();
  const signer = await openPkcs12(certs.p12, certs.password);
  const inputs = Array.from({ length: runs + warmup }, () => dianInvoice(lines));
  return timeRuns(lines, runs, warmup, async (i) => {
    const input = inputs[i];
    if (!input) throw new Error("no input");
    // signed now, as a transmission signs (DESIGN §12)
    return (await buildSignedDocument(input, signer, { signingTime: colombianTime(new Date()) })).xml.length;
  });
}

/** Zipping a signed `lines`-line invoice and building and signing its SendBillSync envelope. */
export async function measureDianEnvelope(lines = 20, runs = 50, warmup = 5): Promise<DianSigningTiming> {
  const certs = createTestCertificates();
  const signer = await openPkcs12(certs.p12, certs.password);
  const invoice = dianInvoice(lines);
  const { xml } = await buildSignedDocument(invoice, signer, signedAtIssue(invoice));
  const files = submissionFiles({
    kind: "invoice",
    issuerNit: "900123456",
    package: { year: 2026, consecutive: 1 },
  });
  return timeRuns(lines, runs, warmup, async (i) => {
    const packed = await packDocument(files, xml, new Date());
    const url = "https://vpfe-hab.dian.gov.co/WcfDianCustomerServices.svc";
    const envelope = await buildEnvelope("SendBillSync", packed, {
      url,
      signer,
      created: new Date(),
      id: `bench-${i}`,
    });
    return envelope.bytes.length;
  });
}

/**
 * Building and signing the AttachedDocument of a `lines`-line invoice DIAN validated: the document
 * and DIAN's (stand-in) ApplicationResponse are made beforehand, as they are when it is built.
 */
export async function measureAttachedDocument(lines = 20, runs = 50, warmup = 5): Promise<DianSigningTiming> {
  const signers = await createSandboxSigners();
  const inputs: AttachedDocumentInput[] = [];
  for (let i = 0; i < runs + warmup; i++) {
    const { document, dian } = dianInvoice(lines);
    const signed = await buildSignedDocument(
      { document, dian },
      signers.issuer,
      signedAtIssue({ document, dian }),
    );
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
  return timeRuns(lines, runs, warmup, async (i) => {
    const input = inputs[i];
    if (!input) throw new Error("no input");
    return (await buildAttachedDocument(input, signers.issuer)).length;
  });
}
