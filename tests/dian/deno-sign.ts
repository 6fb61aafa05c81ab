/**
 * What `dian-under-deno.test.ts` runs under Deno (the deployed runtime) and under Node: opens the
 * PKCS#12, builds and signs each document of a job file, then the AttachedDocument of each document
 * the job gives DIAN's ApplicationResponse for, answering every signed XML in base64, in that order.
 */
import { readFileSync } from "node:fs";
import { signedAtIssue } from "../../devkit/dian/documents.ts";
import { buildAttachedDocument } from "../../shared/providers/dian/attached-document.ts";
import { openPkcs12 } from "../../shared/providers/dian/certificate.ts";
import { buildSignedDocument } from "../../shared/providers/dian/document.ts";
import type { DianDocumentInput } from "../../shared/providers/dian/input.ts";

export interface SignJob {
  p12Base64: string;
  password: string;
  inputs: DianDocumentInput[];
  /** AttachedDocuments to build: of `inputs[index]`, with this ApplicationResponse (base64). */
  attached?: { index: number; applicationResponse: string }[];
}

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const toBase64 = (bytes: Uint8Array) => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));

export async function signJob(path: string): Promise<string[]> {
  const job = JSON.parse(readFileSync(path, "utf8")) as SignJob;
  const signer = await openPkcs12(fromBase64(job.p12Base64), job.password);
  const signed = [];
  for (const input of job.inputs) signed.push(await buildSignedDocument(input, signer, signedAtIssue(input)));
  const out = signed.map((s) => toBase64(s.xml));
  for (const { index, applicationResponse } of job.attached ?? []) {
    const input = job.inputs[index];
    const document = signed[index];
    if (!input || !document) throw new Error(`the job has no document ${index}`);
    const xml = await buildAttachedDocument(
      {
        document: document.xml,
        applicationResponse: fromBase64(applicationResponse),
        facts: { ...input.document, authority_code: document.authorityCode },
      },
      signer,
    );
    out.push(toBase64(xml));
  }
  return out;
}
