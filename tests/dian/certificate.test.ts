/**
 * Opening the company's PKCS#12: the encryptions certification authorities and tools produce (OpenSSL
 * 3's AES default, the legacy RC2-40 and 3DES ones), the NIT read from the subject as DIAN reads it,
 * and plain refusals for a wrong password or a file that is not one.
 */
import { execFileSync } from "node:child_process";
import { createVerify } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCertificates, type TestCertificates } from "../../devkit/dian/certificates.ts";
import { opensslPkcs12Files } from "../../devkit/dian/pkcs12-files.ts";
import { CertificateError, openPkcs12 } from "../../shared/providers/dian/certificate.ts";

let dir: string;
let certs: TestCertificates;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "einv-p12-"));
  certs = createTestCertificates({ nit: "901234567", algorithm: "3des" });
  opensslPkcs12Files(dir, "/CN=Empresa OpenSSL S.A.S./serialNumber=800197268-4/C=CO", {
    "aes.p12": [],
    "legacy.p12": ["-legacy"],
    "des.p12": ["-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-3DES", "-macalg", "sha1"],
  });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const data = new TextEncoder().encode("firmado");
async function signsAndVerifies(p12: Uint8Array, password: string, certificatePem: string) {
  const signer = await openPkcs12(p12, password);
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", signer.privateKey, data);
  return createVerify("sha256").update(data).verify(certificatePem, Buffer.from(signature));
}

describe("opening a PKCS#12", () => {
  it.each([
    ["OpenSSL 3's default (PBES2, AES-256, HMAC-SHA-256)", "aes.p12"],
    ["the legacy one (RC2-40 certificates, 3DES key, SHA-1 MAC)", "legacy.p12"],
    ["3DES throughout", "des.p12"],
  ])("opens %s and signs with its key", async (_name, file) => {
    const p12 = readFileSync(join(dir, file));
    expect(await signsAndVerifies(p12, "s3creta", readFileSync(join(dir, "cert.pem"), "utf8"))).toBe(true);
  });

  it("describes the leaf certificate: subject, NIT from SERIALNUMBER, serial, dates", async () => {
    const { certificate } = await openPkcs12(readFileSync(join(dir, "aes.p12")), "s3creta");
    expect(certificate.subject).toBe("C=CO,SERIALNUMBER=800197268-4,CN=Empresa OpenSSL S.A.S.");
    expect(certificate.issuerName).toBe(certificate.subject);
    expect(certificate.nit).toBe("800197268");
    expect(certificate.notAfter.getTime() - certificate.notBefore.getTime()).toBe(30 * 86_400_000);
    const serial = execFileSync("openssl", ["x509", "-in", join(dir, "cert.pem"), "-noout", "-serial"], {
      encoding: "utf8",
    });
    expect(certificate.serialNumber).toBe(BigInt(`0x${serial.trim().split("=")[1]}`).toString(10));
  });

  it("picks the key's certificate out of the chain, and the NIT where DIAN's CAs put it", async () => {
    const signer = await openPkcs12(certs.p12, certs.password);
    expect(signer.certificate.nit).toBe("901234567");
    expect(signer.certificate.subject).toBe(
      "C=CO,1.3.6.1.4.1.23267.2.3=901234567,SERIALNUMBER=901234567,CN=Empresa Demo S.A.S.",
    );
    expect(signer.certificate.issuerName).toBe("C=CO,O=Pruebas,CN=CA de pruebas einvoicing");
    expect(signer.certificate.serialNumber).toBe(certs.serialNumber);
    expect(await signsAndVerifies(certs.p12, certs.password, certs.certificatePem)).toBe(true);
    expect(signer.privateKey.extractable).toBe(false);
  });

  it("refuses a wrong password and a file that is not a PKCS#12, saying which", async () => {
    await expect(openPkcs12(readFileSync(join(dir, "aes.p12")), "otra")).rejects.toThrow(
      new CertificateError("the certificate's password is wrong or the file is not a PKCS#12"),
    );
    await expect(openPkcs12(readFileSync(join(dir, "cert.pem")), "s3creta")).rejects.toBeInstanceOf(
      CertificateError,
    );
  });
});
