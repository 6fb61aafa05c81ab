/**
 * The sandbox's two signing certificates, issued by one test CA: the issuer's (every document the
 * sandbox accepts is signed with it, whoever the issuer is) and the stand-in "DIAN"'s (its
 * ApplicationResponses). Generated when first needed and then kept for the life of the process:
 * three RSA keys cost about half a second, which no request should pay twice. A sandbox may be given
 * its own instead (`createSandboxProvider({ signers })`); `GET /_sandbox/certificates` serves the
 * certificates to whoever verifies the signatures.
 */
import { createTestSigners } from "../devkit/dian/certificates.ts";
import type { Signer } from "../shared/providers/dian/certificate.ts";
import { DIAN_NIT } from "../shared/providers/dian/extensions.ts";

export interface SandboxSigners {
  /** Signs the documents and their AttachedDocuments, as an issuer would. */
  issuer: Signer;
  /** Signs the ApplicationResponses, as DIAN does. */
  dian: Signer;
  /** The certificates, PEM: `ca` is what a verifier trusts (xmlsec1 `--trusted-pem`). */
  pem: { ca: string; issuer: string; dian: string };
}

/** The issuer certificate's holder: a sandbox company (its NIT is no real issuer's). */
const SANDBOX_ISSUER = { nit: "900000001", companyName: "Emisor de pruebas del sandbox" };

let shared: Promise<SandboxSigners> | undefined;

/** This process's sandbox signers, generated on the first call. */
export function sandboxSigners(): Promise<SandboxSigners> {
  shared ??= createSandboxSigners().catch((error: unknown) => {
    shared = undefined; // a failed generation is tried again on the next call
    throw error;
  });
  return shared;
}

/** A new CA and its issuer and "DIAN" signers. */
export async function createSandboxSigners(): Promise<SandboxSigners> {
  const { caPem, signers } = await createTestSigners([
    SANDBOX_ISSUER,
    { nit: DIAN_NIT.nit, companyName: "U.A.E. Dirección de Impuestos y Aduanas Nacionales (sandbox)" },
  ]);
  const [issuer, dian] = signers;
  if (!issuer || !dian) throw new Error("the sandbox's certificates were not all issued");
  return {
    issuer: issuer.signer,
    dian: dian.signer,
    pem: { ca: caPem, issuer: issuer.certificatePem, dian: dian.certificatePem },
  };
}
