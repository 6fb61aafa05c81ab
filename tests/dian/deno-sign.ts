/**
 * What `dian-under-deno.test.ts` runs under Deno (the deployed runtime) and under Node: opens the
 * PKCS#12 and builds and signs each document of a job file, answering the signed XML in base64.
 */
import { readFileSync } from "node:fs";
import { openPkcs12 } from "../../shared/fiscal/co/dian/certificate.ts";
import { buildSignedDocument } from "../../shared/fiscal/co/dian/document.ts";
import type { DianDocumentInput } from "../../shared/fiscal/co/dian/input.ts";

export interface SignJob {
  p12Base64: string;
  password: string;
  inputs: DianDocumentInput[];
}

export async function signJob(path: string): Promise<string[]> {
  const job = JSON.parse(readFileSync(path, "utf8")) as SignJob;
  const signer = await openPkcs12(
    Uint8Array.from(atob(job.p12Base64), (c) => c.charCodeAt(0)),
    job.password,
  );
  const out: string[] = [];
  for (const input of job.inputs) {
    const { xml } = await buildSignedDocument(input, signer);
    out.push(btoa(Array.from(xml, (b) => String.fromCharCode(b)).join("")));
  }
  return out;
}
