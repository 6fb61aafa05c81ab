/**
 * A DIAN-mode credential's sealed form: the key and certificate read out of the PKCS#12 once, and the
 * PIN, as one plaintext; `openDianCredential` — what the DIAN adapter calls on every request — gives
 * back a signer that signs for that certificate, without the password, and refuses anything else
 * without repeating it.
 */
import { createVerify } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { CANARY_CERTIFICATE_PASSWORD, CANARY_SOFTWARE_PIN } from "../../devkit/canary.ts";
import { createTestCertificates, type TestCertificates } from "../../devkit/dian/certificates.ts";
import { readPkcs12 } from "../../shared/providers/dian/certificate.ts";
import {
  DianCredentialError,
  dianCredentialParts,
  dianCredentialPlaintext,
  openDianCredential,
} from "../../shared/providers/dian/credential.ts";

let certs: TestCertificates;
let plaintext: string;

beforeAll(() => {
  certs = createTestCertificates({
    nit: "900777222",
    algorithm: "3des",
    password: CANARY_CERTIFICATE_PASSWORD,
  });
  const opened = readPkcs12(certs.p12, certs.password);
  plaintext = dianCredentialPlaintext({
    pkcs8: opened.pkcs8,
    certificate: opened.certificate.base64,
    softwarePin: CANARY_SOFTWARE_PIN,
  });
});

describe("the sealed form of a DIAN-mode credential", () => {
  it("holds the opened key, the leaf certificate and the PIN, never the password or the file", () => {
    const parsed = JSON.parse(plaintext);
    expect(Object.keys(parsed)).toEqual(["format", "pkcs8", "certificate", "software_pin"]);
    expect(parsed.format).toBe("dian-credential/v1");
    expect(parsed.pkcs8).toBe(certs.pkcs8Base64);
    expect(parsed.software_pin).toBe(CANARY_SOFTWARE_PIN);
    expect(plaintext).not.toContain(CANARY_CERTIFICATE_PASSWORD);
    expect(plaintext).not.toContain(Buffer.from(certs.p12).toString("base64").slice(0, 200));
  });

  it("opens into a signer for the certificate, and the PIN, without the password", async () => {
    const { signer, softwarePin } = await openDianCredential(plaintext);
    expect(softwarePin).toBe(CANARY_SOFTWARE_PIN);
    expect(signer.certificate.nit).toBe("900777222");
    expect(signer.certificate.serialNumber).toBe(certs.serialNumber);
    expect(signer.privateKey.extractable).toBe(false);
    const data = new TextEncoder().encode("<ds:SignedInfo/>");
    const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", signer.privateKey, data);
    expect(createVerify("sha256").update(data).verify(certs.certificatePem, Buffer.from(signature))).toBe(
      true,
    );
    // the same parts, read back as they were written
    expect(dianCredentialPlaintext(dianCredentialParts(plaintext))).toBe(plaintext);
  });

  it.each([
    ["a provider API key", () => "sk_sandbox_CANARY-provider-key-7f3a9c2e"],
    [
      "JSON of another form",
      () => JSON.stringify({ format: "dian-credential/v0", pkcs8: "", certificate: "" }),
    ],
    ["a part that is not base64", () => plaintext.replace(/"pkcs8":"/, '"pkcs8":"!')],
  ])("refuses %s, without repeating it", async (_what, text) => {
    const error = await openDianCredential(text()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DianCredentialError);
    expect((error as Error).message).toBe("the saved text is not a DIAN-mode credential");
  });

  it("refuses a key or certificate that does not read, naming which", async () => {
    const parts = dianCredentialParts(plaintext);
    const badKey = dianCredentialPlaintext({ ...parts, pkcs8: new Uint8Array([48, 3, 2, 1, 0]) });
    await expect(openDianCredential(badKey)).rejects.toThrow(
      new DianCredentialError(
        "the saved credential does not open: the private key does not read as PKCS#8 RSA",
      ),
    );
    const badCertificate = dianCredentialPlaintext({ ...parts, certificate: "MAA=" });
    await expect(openDianCredential(badCertificate)).rejects.toThrow(
      new DianCredentialError("the saved credential does not open: the certificate does not read as X.509"),
    );
  });
});
