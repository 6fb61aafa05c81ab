/**
 * What opening a PKCS#12 may cost is read before any of it is paid: the iteration counts of the MAC,
 * of encrypted contents and of shrouded keys — in view, and inside encrypted contents — summed and
 * held to the cap. A hostile count is refused without its derivation running: the proof is that a
 * wrong password then does not get "wrong password" (which only the MAC's derivation could tell),
 * and that a count no machine could derive in a test's time comes back at once.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCertificates, type TestCertificates } from "../../devkit/dian/certificates.ts";
import {
  keyInsideEncryptedContents,
  opensslPkcs12Files,
  withIterations,
} from "../../devkit/dian/pkcs12-files.ts";
import { CertificateError, openPkcs12, readPkcs12 } from "../../shared/providers/dian/certificate.ts";
import {
  checkPkcs12Cost,
  MAX_PKCS12_ITERATIONS,
  Pkcs12CostError,
  Pkcs12StructureError,
} from "../../shared/providers/dian/pkcs12-cost.ts";

let dir: string;
let certs: TestCertificates;

beforeAll(() => {
  certs = createTestCertificates({ nit: "900555111" });
  dir = mkdtempSync(join(tmpdir(), "einv-p12-cost-"));
  opensslPkcs12Files(dir, "/CN=x", {
    "aes.p12": [],
    "sha512-mac.p12": ["-macalg", "sha512"],
    "des.p12": ["-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-3DES", "-macalg", "sha1", "-iter", "10000"],
  });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const seconds = async (run: () => unknown) => {
  const start = performance.now();
  try {
    await run();
  } catch {
    // the error is the other assertion's
  }
  return (performance.now() - start) / 1000;
};

describe("the cost of opening a PKCS#12", () => {
  it("lists every derivation of the files tools write, without the password for what is in view", () => {
    // node-forge's own layout: a MAC and a shrouded key, the certificates in plain contents
    expect(checkPkcs12Cost(certs.p12, "not even the password")).toEqual([
      { step: "mac", iterations: 2048 },
      { step: "private key", iterations: 2048 },
    ]);
    // OpenSSL's: the certificates in encrypted contents, decrypted (and counted) twice
    expect(checkPkcs12Cost(readFileSync(join(dir, "aes.p12")), "s3creta")).toEqual([
      { step: "mac", iterations: 2048 },
      { step: "encrypted contents", iterations: 2048 },
      { step: "encrypted contents", iterations: 2048 },
      { step: "private key", iterations: 2048 },
    ]);
    expect(checkPkcs12Cost(readFileSync(join(dir, "des.p12")), "s3creta").map((d) => d.iterations)).toEqual([
      10000, 10000, 10000, 10000,
    ]);
  });

  it("counts an iteration of SHA-512 twice: JavaScript pays about double for 64-bit words", () => {
    expect(checkPkcs12Cost(readFileSync(join(dir, "sha512-mac.p12")), "s3creta")[0]).toEqual({
      step: "mac",
      iterations: 4096,
    });
  });

  it("refuses a MAC declaring a billion iterations before deriving it: not a wrong password, and at once", async () => {
    const hostile = withIterations(certs.p12, { mac: 1_000_000_000n });
    const error = (() => {
      try {
        readPkcs12(hostile, "a wrong password");
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(Pkcs12CostError);
    expect((error as Error).message).toBe(
      "the certificate file asks for 1,000,002,048 password key-derivation iterations to open; at most 200,000 are accepted (export it again with fewer, e.g. `openssl pkcs12 -export -iter 2048`)",
    );
    // a billion iterations would take minutes (about 1 µs each measured): it never started
    expect(await seconds(() => openPkcs12(hostile, certs.password))).toBeLessThan(5);
  });

  it("refuses a shrouded key in view declaring too many, and counts past 2^53", () => {
    expect(() => readPkcs12(withIterations(certs.p12, { key: 2_147_483_647n }), certs.password)).toThrow(
      /asks for 2,147,485,695 password key-derivation iterations/,
    );
    expect(() => checkPkcs12Cost(withIterations(certs.p12, { key: 2n ** 70n }), certs.password)).toThrow(
      /asks for more than 2\^53 password key-derivation iterations/,
    );
  });

  it("holds the sum to the cap: each count under it, together over it", () => {
    const within = withIterations(certs.p12, { mac: BigInt(MAX_PKCS12_ITERATIONS - 2048), key: 2048n });
    expect(checkPkcs12Cost(within, "x").reduce((sum, d) => sum + d.iterations, 0)).toBe(
      MAX_PKCS12_ITERATIONS,
    );
    const over = withIterations(certs.p12, { mac: 150_000n, key: 60_000n });
    expect(() => checkPkcs12Cost(over, "x")).toThrow(Pkcs12CostError);
  });

  it("reads the count of a key hidden inside encrypted contents before node-forge derives it", async () => {
    const plain = keyInsideEncryptedContents(certs);
    expect(checkPkcs12Cost(plain, certs.password).map((d) => d.step)).toEqual([
      "mac",
      "encrypted contents",
      "encrypted contents",
      "private key",
    ]);
    // and such a file opens and signs
    const signer = await openPkcs12(plain, certs.password);
    expect(signer.certificate.nit).toBe("900555111");

    const hidden = keyInsideEncryptedContents(certs, { keyIterations: 1_000_000_000n });
    expect(await seconds(() => readPkcs12(hidden, certs.password))).toBeLessThan(5);
    expect(() => readPkcs12(hidden, certs.password)).toThrow(/asks for 1,000,006,144 password/);
  });

  it("refuses what is not a PKCS#12, or a count that is not a positive number, as a certificate that does not open", () => {
    for (const bytes of [new TextEncoder().encode("-----BEGIN CERTIFICATE-----"), new Uint8Array(64)]) {
      expect(() => checkPkcs12Cost(bytes, "x")).toThrow(Pkcs12StructureError);
      expect(() => readPkcs12(bytes, "x")).toThrow(CertificateError);
    }
    expect(() => readPkcs12(withIterations(certs.p12, { mac: 0n }), certs.password)).toThrow(
      new CertificateError("the PKCS#12 declares an iteration count that is not a positive number"),
    );
  });
});
