/**
 * What `dian-envelope-under-deno.test.ts` runs under Deno (the deployed runtime) and under Node:
 * opens the PKCS#12 and builds and signs the SOAP envelope of each operation of a job file with a
 * fixed clock and fixed Ids, answering the envelopes in base64.
 */
import { readFileSync } from "node:fs";
import { openPkcs12 } from "../../shared/providers/dian/certificate.ts";
import { buildEnvelope, type DianOperation, type DianRequests } from "../../shared/providers/dian/soap.ts";

export interface EnvelopeJob {
  p12Base64: string;
  password: string;
  url: string;
  /** ISO instant of the Timestamp's Created. */
  created: string;
  calls: { [O in DianOperation]: { operation: O; params: DianRequests[O]; id: string } }[DianOperation][];
}

export async function envelopeJob(path: string): Promise<string[]> {
  const job = JSON.parse(readFileSync(path, "utf8")) as EnvelopeJob;
  const signer = await openPkcs12(
    Uint8Array.from(atob(job.p12Base64), (c) => c.charCodeAt(0)),
    job.password,
  );
  const out: string[] = [];
  for (const call of job.calls) {
    const { bytes } = await buildEnvelope(call.operation, call.params as never, {
      url: job.url,
      signer,
      created: new Date(job.created),
      id: call.id,
    });
    out.push(btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join("")));
  }
  return out;
}
