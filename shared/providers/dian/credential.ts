/**
 * A DIAN-mode credential as it is sealed (the plaintext the SecretBox seals in the credential's
 * `api_key_ciphertext`): the company's private key as PKCS#8, its certificate, and the software PIN.
 * Not the PKCS#12 and its password: /integrations/save opens the file once, proves it, and keeps what
 * it opened, so the DIAN adapter rebuilds its signer on each request without the password's key
 * derivation (`openDianCredential`: a PKCS#8 import and a certificate parse, about a millisecond).
 *
 * The form is JSON with a `format` tag, checked on every open. Which form a row holds is told by its
 * settings (`provider: "dian"`), written in the same statement as the ciphertext.
 */
import { CertificateError, type Signer, signerFromParts } from "./certificate.ts";

const FORMAT = "dian-credential/v1";

/** What a DIAN-mode credential keeps: all of it secret but the certificate. */
export interface DianCredentialParts {
  /** The private key, PKCS#8 DER. */
  pkcs8: Uint8Array<ArrayBuffer>;
  /** The certificate, DER in base64 (`CertificateInfo.base64`). */
  certificate: string;
  /** The software's PIN (DIAN's software registration). */
  softwarePin: string;
}

/** What the DIAN adapter works with: the signer (certificate and key) and the software PIN. */
export interface DianCredential {
  signer: Signer;
  softwarePin: string;
}

/** The sealed text is not a DIAN-mode credential, or its key or certificate do not read. */
export class DianCredentialError extends Error {
  override name = "DianCredentialError";
}

/** The plaintext to seal for `parts`. */
export function dianCredentialPlaintext(parts: DianCredentialParts): string {
  return JSON.stringify({
    format: FORMAT,
    pkcs8: toBase64(parts.pkcs8),
    certificate: parts.certificate,
    software_pin: parts.softwarePin,
  });
}

/**
 * The signer and PIN of a sealed DIAN-mode credential's plaintext (what `SecretBox.open` gives for
 * the row): what the DIAN adapter calls on every request. Throws DianCredentialError, whose message
 * holds none of the plaintext.
 */
export async function openDianCredential(plaintext: string): Promise<DianCredential> {
  const parts = dianCredentialParts(plaintext);
  try {
    return { signer: await signerFromParts(parts.pkcs8, parts.certificate), softwarePin: parts.softwarePin };
  } catch (error) {
    if (error instanceof CertificateError) {
      throw new DianCredentialError(`the saved credential does not open: ${error.message}`);
    }
    throw error;
  }
}

/** The parts of a sealed DIAN-mode credential's plaintext, unchecked beyond their form. */
export function dianCredentialParts(plaintext: string): DianCredentialParts {
  const unreadable = () => new DianCredentialError("the saved text is not a DIAN-mode credential");
  let value: unknown;
  try {
    value = JSON.parse(plaintext);
  } catch {
    throw unreadable();
  }
  if (value === null || typeof value !== "object") throw unreadable();
  const { format, pkcs8, certificate, software_pin } = value as Record<string, unknown>;
  if (
    format !== FORMAT ||
    typeof pkcs8 !== "string" ||
    typeof certificate !== "string" ||
    typeof software_pin !== "string"
  ) {
    throw unreadable();
  }
  let key: Uint8Array<ArrayBuffer>;
  try {
    key = fromBase64(pkcs8);
  } catch {
    throw unreadable();
  }
  return { pkcs8: key, certificate, softwarePin: software_pin };
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
