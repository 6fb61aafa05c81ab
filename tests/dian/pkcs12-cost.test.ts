/**
 * What opening a PKCS#12 may cost is read before any of it is paid: the algorithms of the MAC, of
 * encrypted contents and of shrouded keys — in view, and inside encrypted contents — held to an
 * allow-list, and the work each asks for (iterations × blocks × the hash's weight) summed and held
 * to the cap. A hostile file is refused without its derivation running: the proof is that a wrong
 * password then does not get "wrong password" (which only a derivation could tell), and that what
 * no machine could derive in a test's time comes back at once.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuUsage } from "node:process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCertificates, type TestCertificates } from "../../devkit/dian/certificates.ts";
import {
  keyInsideEncryptedContents,
  opensslPkcs12Files,
  pkcs12File,
  withIterations,
  withPartsRepeated,
} from "../../devkit/dian/pkcs12-files.ts";
import { CertificateError, openPkcs12, readPkcs12 } from "../../shared/providers/dian/certificate.ts";
import {
  checkPkcs12Cost,
  MAX_PKCS12_PARTS,
  MAX_PKCS12_WORK,
  Pkcs12CostError,
  type Pkcs12Derivation,
  Pkcs12StructureError,
  Pkcs12UnsupportedError,
} from "../../shared/providers/dian/pkcs12-cost.ts";

let dir: string;
let certs: TestCertificates;

beforeAll(() => {
  certs = createTestCertificates({ nit: "900555111" });
  dir = mkdtempSync(join(tmpdir(), "einv-p12-cost-"));
  opensslPkcs12Files(dir, "/CN=x", {
    "aes.p12": [],
    "legacy.p12": ["-legacy"],
    "sha512-mac.p12": ["-macalg", "sha512"],
    // Windows' "TripleDES-SHA1" export, at its 2,000 iterations
    "des.p12": ["-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-3DES", "-macalg", "sha1", "-iter", "2000"],
  });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What `run` threw (undefined when it did not), and the CPU it took, in ms. */
function attempt(run: () => unknown): { error: unknown; cpuMs: number } {
  const before = cpuUsage();
  let error: unknown;
  try {
    run();
  } catch (e) {
    error = e;
  }
  const used = cpuUsage(before);
  return { error, cpuMs: (used.user + used.system) / 1000 };
}

const total = (derivations: Pkcs12Derivation[]) => derivations.reduce((sum, d) => sum + d.work, 0);
const read = (name: string) => readFileSync(join(dir, name));

describe("the cost of opening a PKCS#12", () => {
  it("lists every derivation of the files tools write, with the work each really costs", () => {
    // node-forge's own layout: a SHA-1 MAC and a key under PBKDF2-HMAC-SHA-1 and AES-256, whose 32
    // bytes are two SHA-1 blocks; the certificates in plain contents
    expect(checkPkcs12Cost(certs.p12, "not even the password")).toEqual([
      { step: "mac", kdf: "pkcs12", hash: "sha1", iterations: 2048, blocks: 1, work: 6144 },
      { step: "private key", kdf: "pbkdf2", hash: "sha1", iterations: 2048, blocks: 2, work: 4096 },
    ]);
    // OpenSSL 3's defaults: PBKDF2-HMAC-SHA-256 and AES-256 (one block), the certificates in
    // encrypted contents, decrypted (and counted) twice
    const pbkdf2 = { kdf: "pbkdf2", hash: "sha256", iterations: 2048, blocks: 1, work: 2048 };
    expect(checkPkcs12Cost(read("aes.p12"), "s3creta")).toEqual([
      { step: "mac", kdf: "pkcs12", hash: "sha256", iterations: 2048, blocks: 1, work: 6144 },
      { step: "encrypted contents", ...pbkdf2 },
      { step: "encrypted contents", ...pbkdf2 },
      { step: "private key", ...pbkdf2 },
    ]);
    expect(total(checkPkcs12Cost(read("aes.p12"), "s3creta"))).toBe(12_288);
    // OpenSSL's -legacy (and Windows' TripleDES-SHA1): RC2-40 contents (a key block and an IV block),
    // a 3DES key (24 bytes: two SHA-1 blocks, and one for the IV), a SHA-1 MAC
    expect(checkPkcs12Cost(read("legacy.p12"), "s3creta")).toEqual([
      { step: "mac", kdf: "pkcs12", hash: "sha1", iterations: 2048, blocks: 1, work: 6144 },
      { step: "encrypted contents", kdf: "pkcs12", hash: "sha1", iterations: 2048, blocks: 2, work: 12_288 },
      { step: "encrypted contents", kdf: "pkcs12", hash: "sha1", iterations: 2048, blocks: 2, work: 12_288 },
      { step: "private key", kdf: "pkcs12", hash: "sha1", iterations: 2048, blocks: 3, work: 18_432 },
    ]);
    expect(checkPkcs12Cost(read("des.p12"), "s3creta").map((d) => d.work)).toEqual([
      6000, 18_000, 18_000, 18_000,
    ]);
  });

  it("weighs a MAC of SHA-512, whose 64-bit words JavaScript emulates, at 12 a block", () => {
    expect(checkPkcs12Cost(read("sha512-mac.p12"), "s3creta")[0]).toEqual({
      step: "mac",
      kdf: "pkcs12",
      hash: "sha512",
      iterations: 2048,
      blocks: 1,
      work: 24_576,
    });
  });

  it("refuses at once the file that froze the server: no MAC, one key, 199,999 iterations of hmacWithSHA224, AES-256", () => {
    const hostile = withIterations(
      pkcs12File(certs, { mac: null, key: { algorithm: "aes256", prf: "sha224", iterations: 1 } }),
      { key: 199_999n },
    );
    const { error, cpuMs } = attempt(() => readPkcs12(hostile, certs.password));
    expect(error).toBeInstanceOf(Pkcs12UnsupportedError);
    expect((error as Error).message).toBe(
      "the certificate file is not supported: its private key derives its key with PBKDF2 and " +
        "hmacWithSHA224 (1.2.840.113549.2.8); accepted are PBES2 (PBKDF2 with HMAC-SHA-1, -256, -384 or " +
        "-512; AES-128, -192 or -256-CBC or DES-EDE3-CBC), pbeWithSHAAnd3-KeyTripleDES-CBC, " +
        "pbeWithSHAAnd40BitRC2-CBC, and a MAC with SHA-1, -256, -384 or -512, as OpenSSL, Windows and " +
        "Java write them (export it again, e.g. `openssl pkcs12 -export`)",
    );
    // node-forge ran it as SHA-512/224, two blocks: 5–7 s of CPU before this refusal
    expect(cpuMs).toBeLessThan(200);
  });

  it.each([
    ["a MAC of MD5", { mac: { digest: "md5", iterations: 1 } }, "its MAC uses MD5 (1.2.840.113549.2.5)"],
    [
      "a key under PBKDF2 with hmacWithSHA224",
      { key: { algorithm: "aes128", prf: "sha224", iterations: 1 } },
      "its private key derives its key with PBKDF2 and hmacWithSHA224 (1.2.840.113549.2.8)",
    ],
    [
      "a key under single DES",
      { key: { algorithm: "des", prf: "sha256", iterations: 1 } },
      "its private key is encrypted with DES-CBC (1.3.14.3.2.7)",
    ],
    [
      "certificates under PBKDF2 with hmacWithSHA224",
      { certificates: { encrypted: { algorithm: "aes256", prf: "sha224", iterations: 1 } } },
      "its encrypted contents derives its key with PBKDF2 and hmacWithSHA224 (1.2.840.113549.2.8)",
    ],
  ] as const)("refuses %s, naming it, before any derivation", (_what, change, named) => {
    const file = pkcs12File(certs, {
      mac: { digest: "sha256", iterations: 1 },
      key: { algorithm: "aes256", prf: "sha256", iterations: 1 },
      ...change,
    });
    // a wrong password: only a derivation could have told
    const { error } = attempt(() => readPkcs12(file, "a wrong password"));
    expect(error).toBeInstanceOf(Pkcs12UnsupportedError);
    expect((error as Error).message).toContain(`the certificate file is not supported: ${named};`);
  });

  it("accepts what tools offer: each accepted PRF and cipher opens", async () => {
    for (const key of [
      { algorithm: "aes128", prf: "sha384" },
      { algorithm: "aes192", prf: "sha512" },
      { algorithm: "aes256", prf: "sha256" },
      { algorithm: "3des" },
    ] as const) {
      const file = pkcs12File(certs, {
        mac: { digest: "sha384", iterations: 2 },
        key: { ...key, iterations: 3 },
        certificates: { encrypted: { algorithm: "aes128", prf: "sha1", iterations: 4 } },
      });
      expect((await openPkcs12(file, certs.password)).certificate.nit).toBe("900555111");
    }
  });

  it("counts blocks as node-forge derives them: PBKDF2 ⌈key ÷ hash⌉, 3DES's key and IV", () => {
    const steps = (key: Omit<Parameters<typeof pkcs12File>[1]["key"], "iterations">) =>
      checkPkcs12Cost(pkcs12File(certs, { mac: null, key: { ...key, iterations: 5 } }), "x").map(
        ({ hash, blocks, work }) => ({ hash, blocks, work }),
      );
    expect(steps({ algorithm: "aes256", prf: "sha1" })).toEqual([{ hash: "sha1", blocks: 2, work: 10 }]);
    expect(steps({ algorithm: "aes192", prf: "sha1" })).toEqual([{ hash: "sha1", blocks: 2, work: 10 }]);
    expect(steps({ algorithm: "aes128", prf: "sha1" })).toEqual([{ hash: "sha1", blocks: 1, work: 5 }]);
    expect(steps({ algorithm: "aes256", prf: "sha256" })).toEqual([{ hash: "sha256", blocks: 1, work: 5 }]);
    expect(steps({ algorithm: "aes256", prf: "sha384" })).toEqual([{ hash: "sha384", blocks: 1, work: 5 }]);
    expect(steps({ algorithm: "aes256", prf: "sha512" })).toEqual([{ hash: "sha512", blocks: 1, work: 5 }]);
    expect(steps({ algorithm: "3des" })).toEqual([{ hash: "sha1", blocks: 3, work: 45 }]);
  });

  it("refuses a MAC declaring a billion iterations before deriving it: not a wrong password, and at once", () => {
    const hostile = withIterations(certs.p12, { mac: 1_000_000_000n });
    const { error, cpuMs } = attempt(() => readPkcs12(hostile, "a wrong password"));
    expect(error).toBeInstanceOf(Pkcs12CostError);
    expect((error as Error).message).toBe(
      "the certificate file asks for 3,000,004,096 units of password key-derivation work to open " +
        "(iterations × blocks × each hash's weight; OpenSSL's defaults cost 12,288); at most 64,000 " +
        "are accepted (export it again with fewer iterations, e.g. `openssl pkcs12 -export -iter 2048`)",
    );
    expect(cpuMs).toBeLessThan(200);
  });

  it("refuses a shrouded key in view asking for too much, and counts past 2^53", () => {
    expect(() => readPkcs12(withIterations(certs.p12, { key: 2_147_483_647n }), certs.password)).toThrow(
      /asks for 4,294,973,438 units of password key-derivation work/,
    );
    expect(() => checkPkcs12Cost(withIterations(certs.p12, { key: 2n ** 70n }), certs.password)).toThrow(
      /asks for more than 2\^53 units of password key-derivation work/,
    );
  });

  it("holds the sum to the cap: at it accepted, one unit over refused", () => {
    // the key's 2,048 iterations of two SHA-1 blocks are 4,096; the MAC's SHA-1 weighs 3
    const macIterations = (MAX_PKCS12_WORK - 4096) / 3;
    const at = withIterations(certs.p12, { mac: BigInt(macIterations) });
    expect(total(checkPkcs12Cost(at, "x"))).toBe(MAX_PKCS12_WORK);
    const over = withIterations(certs.p12, { mac: BigInt(macIterations), key: 2049n });
    expect(() => checkPkcs12Cost(over, "x")).toThrow(
      /asks for 64,002 units of password key-derivation work to open/,
    );
    expect(() => checkPkcs12Cost(at, "x", MAX_PKCS12_WORK - 1)).toThrow(Pkcs12CostError);
  });

  it("counts the password-protected parts too: tools write three, at most six are taken, refused before any derivation", () => {
    // every part costs a fixed setup besides its counted work: 254 encrypted contents of one
    // iteration each stayed under the work cap and took 300 ms of CPU to open
    expect(MAX_PKCS12_PARTS).toBe(6);
    const parts = (p12: Uint8Array) => {
      try {
        return checkPkcs12Cost(p12, "s3creta").length;
      } catch (error) {
        return error instanceof Pkcs12UnsupportedError ? (error as Error).message : error;
      }
    };
    // a MAC and five keys: six parts, taken (each key's 2,048 iterations of two SHA-1 blocks)
    expect(parts(withPartsRepeated(certs.p12, "keys", 5))).toBe(6);
    expect(parts(withPartsRepeated(certs.p12, "keys", 6))).toMatch(
      /has 7 password-protected parts \(its MAC, encrypted contents and keys\); at most 6 are accepted/,
    );
    // OpenSSL's MAC, contents and key, the contents six times over: eight parts, refused before
    // any of them is decrypted (the password is not even right), at the cost of reading the ASN.1
    expect(parts(read("aes.p12"))).toBe(4);
    const many = withPartsRepeated(read("aes.p12"), "encrypted contents", 6);
    expect(many.byteLength).toBeLessThanOrEqual(16 * 1024); // what the route takes
    const { error, cpuMs } = attempt(() => checkPkcs12Cost(many, "wrong"));
    expect((error as Error).message).toMatch(/has 8 password-protected parts/);
    expect(cpuMs).toBeLessThan(50);
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
    const { error, cpuMs } = attempt(() => readPkcs12(hidden, certs.password));
    expect(cpuMs).toBeLessThan(200);
    expect((error as Error).message).toMatch(/asks for 1,000,010,240 units/);
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

  it("opens a file OpenSSL exported with a password that is not ASCII (PBKDF2 over its UTF-8)", async () => {
    const utf8 = mkdtempSync(join(tmpdir(), "einv-p12-utf8-"));
    try {
      opensslPkcs12Files(utf8, "/CN=x", { "ñ.p12": [] }, "contraseña-del-certificado");
      const signer = await openPkcs12(readFileSync(join(utf8, "ñ.p12")), "contraseña-del-certificado");
      expect(signer.certificate.subject).toBe("CN=x");
    } finally {
      rmSync(utf8, { recursive: true, force: true });
    }
  });
});
