/**
 * What the PKCS#12 cost check (shared/providers/dian/pkcs12-cost.ts) makes of a file that is not
 * what tools write: every part of the structure it reads is checked as node-forge reads it, and
 * whatever is off is refused, naming it, before any key derivation — a structure (Pkcs12StructureError),
 * a mode or an algorithm it does not take (Pkcs12UnsupportedError). And the BER forms a tool may
 * legitimately write (chunked OCTET STRINGs, a length past the end read leniently) are read.
 */
import forge from "node-forge";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestCertificates, type TestCertificates } from "../../devkit/dian/certificates.ts";
import { keyInsideEncryptedContents, pkcs12File } from "../../devkit/dian/pkcs12-files.ts";
import {
  checkPkcs12Cost,
  Pkcs12CostError,
  Pkcs12PasswordError,
  Pkcs12RefusedError,
  Pkcs12StructureError,
  Pkcs12UnsupportedError,
} from "../../shared/providers/dian/pkcs12-cost.ts";

type Asn1 = forge.asn1.Asn1;
const { asn1 } = forge;
const { Class, Type } = asn1;

const seq = (...items: Asn1[]) => asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, items);
const oid = (id: string) => asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer(id).getBytes());
const int = (bytes: string) => asn1.create(Class.UNIVERSAL, Type.INTEGER, false, bytes);
const octets = (bytes: string) => asn1.create(Class.UNIVERSAL, Type.OCTETSTRING, false, bytes);
const tagged = (value: Asn1, type = 0) => asn1.create(Class.CONTEXT_SPECIFIC, type, true, [value]);
const kids = (node: Asn1) => node.value as Asn1[];
const at = (node: Asn1, ...path: number[]) => path.reduce((n, i) => kids(n)[i] as Asn1, node);
const binary = (bytes: Uint8Array) => Array.from(bytes, (b) => String.fromCharCode(b)).join("");
const decode = (bytes: Uint8Array) => asn1.fromDer(forge.util.createBuffer(binary(bytes)), false);
const encode = (node: Asn1) => Uint8Array.from(asn1.toDer(node).getBytes(), (c) => c.charCodeAt(0));

let certs: TestCertificates;
/** A file with a SHA-256 MAC, the key under PBES2 (PBKDF2-HMAC-SHA-256, AES-256), certificates plain. */
let plain: Uint8Array;
beforeAll(() => {
  certs = createTestCertificates({ nit: "900555111" });
  plain = pkcs12File(certs, {
    mac: { digest: "sha256", iterations: 1 },
    key: { algorithm: "aes256", prf: "sha256", iterations: 1 },
  });
});

/** `file` with its PFX changed by `change`. */
function withPfx(file: Uint8Array, change: (pfx: Asn1) => void): Uint8Array {
  const pfx = decode(file);
  change(pfx);
  return encode(pfx);
}

/** `file` with its AuthenticatedSafe (the SEQUENCE OF ContentInfo) changed by `change`. */
function withContents(file: Uint8Array, change: (contents: Asn1) => void): Uint8Array {
  return withPfx(file, (pfx) => {
    const data = at(pfx, 1, 1, 0);
    const contents = asn1.fromDer(data.value as string, false);
    change(contents);
    data.value = asn1.toDer(contents).getBytes();
  });
}

/** `file` (keys in plain contents, the first ContentInfo) with its first shrouded key's AlgorithmIdentifier changed. */
function withKeyAlgorithm(file: Uint8Array, change: (algorithm: Asn1) => void): Uint8Array {
  return withContents(file, (contents) => {
    const data = at(contents, 0, 1, 0);
    const bags = asn1.fromDer(data.value as string, false);
    change(at(bags, 0, 1, 0, 0));
    data.value = asn1.toDer(bags).getBytes();
  });
}

/** What `checkPkcs12Cost` throws for `file`. */
function refusal(file: Uint8Array, password = certs.password): Error {
  try {
    checkPkcs12Cost(file, password);
  } catch (error) {
    return error as Error;
  }
  throw new Error("accepted");
}

const NOT_PKCS12 = "the file is not a PKCS#12 certificate";

describe("a PKCS#12 structure the check refuses, naming what is off", () => {
  it.each([
    ["an INTEGER instead of the PFX", () => encode(int("\x03")), "the file is not a PKCS#12 structure"],
    [
      "a PFX of version 2",
      () => withPfx(plain, (p) => (kids(p)[0] = int("\x02"))),
      "the file is not a PKCS#12 (PFX version 3)",
    ],
    [
      "a PFX whose version is not an INTEGER",
      () => withPfx(plain, (p) => (kids(p)[0] = octets("\x03"))),
      "the file is not a PKCS#12 (PFX version 3)",
    ],
    ["a PFX of a version alone", () => encode(seq(int("\x03"))), "the file is not a PKCS#12 (PFX version 3)"],
    [
      "a ContentInfo without its content",
      () => withPfx(plain, (p) => (kids(p)[1] = seq(oid("1.2.840.113549.1.7.1")))),
      NOT_PKCS12,
    ],
    [
      "contents under another tag than [0]",
      () => withPfx(plain, (p) => (kids(at(p, 1))[1] = tagged(at(p, 1, 1, 0), 1))),
      NOT_PKCS12,
    ],
    [
      "contents under a universal tag",
      () => withPfx(plain, (p) => (kids(at(p, 1))[1] = seq(at(p, 1, 1, 0)))),
      NOT_PKCS12,
    ],
    [
      "contents that are not an OCTET STRING",
      () => withPfx(plain, (p) => (kids(at(p, 1, 1))[0] = int("\x01"))),
      NOT_PKCS12,
    ],
    [
      "a content type that is not an OID",
      () => withPfx(plain, (p) => (kids(at(p, 1))[0] = int("\x01"))),
      NOT_PKCS12,
    ],
    [
      "contents that are not a SEQUENCE",
      () => withPfx(plain, (p) => (at(p, 1, 1, 0).value = asn1.toDer(int("\x01")).getBytes())),
      "the contents is not a PKCS#12 structure",
    ],
    [
      "a MAC that is not a SEQUENCE",
      () => withPfx(plain, (p) => (kids(p)[2] = int("\x01"))),
      "the MAC is not a PKCS#12 structure",
    ],
    ["an empty MAC", () => withPfx(plain, (p) => (kids(p)[2] = seq())), NOT_PKCS12],
    [
      "a MAC's count that is not an INTEGER",
      () => withPfx(plain, (p) => (kids(at(p, 2))[2] = octets("\x01"))),
      "the PKCS#12 declares an iteration count that is not a positive number",
    ],
    [
      "a MAC's count that is empty",
      () => withPfx(plain, (p) => (kids(at(p, 2))[2] = int(""))),
      "the PKCS#12 declares an iteration count that is not a positive number",
    ],
    [
      "a MAC's count that is negative",
      () => withPfx(plain, (p) => (kids(at(p, 2))[2] = int("\xff"))),
      "the PKCS#12 declares an iteration count that is not a positive number",
    ],
    [
      "a MAC's count that is constructed",
      () =>
        withPfx(
          plain,
          (p) => (kids(at(p, 2))[2] = asn1.create(Class.UNIVERSAL, Type.INTEGER, true, [int("\x01")])),
        ),
      "the PKCS#12 declares an iteration count that is not a positive number",
    ],
    [
      "an OID under a context tag",
      () =>
        withPfx(
          plain,
          (p) =>
            (kids(at(p, 1))[0] = asn1.create(
              Class.CONTEXT_SPECIFIC,
              Type.OID,
              false,
              asn1.oidToDer("1.2.840.113549.1.7.1").getBytes(),
            )),
        ),
      NOT_PKCS12,
    ],
    [
      "PBES2 parameters that are not a SEQUENCE",
      () => withKeyAlgorithm(plain, (a) => (kids(a)[1] = int("\x01"))),
      "the PBES2 parameters is not a PKCS#12 structure",
    ],
    [
      "a key derivation that is not a SEQUENCE",
      () => withKeyAlgorithm(plain, (a) => (kids(at(a, 1))[0] = int("\x01"))),
      "the key derivation is not a PKCS#12 structure",
    ],
    [
      "an encryption scheme that is not a SEQUENCE",
      () => withKeyAlgorithm(plain, (a) => (kids(at(a, 1))[1] = int("\x01"))),
      "the encryption scheme is not a PKCS#12 structure",
    ],
    [
      "PBKDF2 parameters that are not a SEQUENCE",
      () => withKeyAlgorithm(plain, (a) => (kids(at(a, 1, 0))[1] = int("\x01"))),
      "the PBKDF2 parameters is not a PKCS#12 structure",
    ],
    [
      "PBKDF2 parameters without a count",
      () => withKeyAlgorithm(plain, (a) => (at(a, 1, 0, 1).value = [at(a, 1, 0, 1, 0)])),
      "the PKCS#12 declares an iteration count that is not a positive number",
    ],
    [
      "a PBKDF2 salt that is not an OCTET STRING",
      () => withKeyAlgorithm(plain, (a) => (kids(at(a, 1, 0, 1))[0] = int("\x01"))),
      "the PKCS#12's PBKDF2 parameters are not in RFC 8018's form",
    ],
    [
      "a PBKDF2 element after the PRF",
      () => withKeyAlgorithm(plain, (a) => kids(at(a, 1, 0, 1)).push(int("\x01"))),
      "the PKCS#12's PBKDF2 parameters are not in RFC 8018's form",
    ],
    [
      "a PBKDF2 PRF that is not a SEQUENCE",
      () => withKeyAlgorithm(plain, (a) => kids(at(a, 1, 0, 1)).splice(2, 2, octets("x"))),
      "the PBKDF2 PRF is not a PKCS#12 structure",
    ],
    [
      "PKCS#12 encryption parameters that are not a SEQUENCE",
      () =>
        withKeyAlgorithm(plain, (a) => {
          kids(a)[0] = oid("1.2.840.113549.1.12.1.3");
          kids(a)[1] = int("\x01");
        }),
      "the encryption's parameters is not a PKCS#12 structure",
    ],
    [
      "a PKCS#12 encryption salt that is not an OCTET STRING",
      () =>
        withKeyAlgorithm(plain, (a) => {
          kids(a)[0] = oid("1.2.840.113549.1.12.1.3");
          kids(a)[1] = seq(int("\x01"), int("\x01"));
        }),
      "the PKCS#12's encryption parameters are not in RFC 7292's form",
    ],
  ])("%s", (_what, file, message) => {
    const error = refusal(file());
    expect(error).toBeInstanceOf(Pkcs12StructureError);
    expect(error.name).toBe("Pkcs12StructureError");
    expect(error.message).toBe(message);
  });

  it("a PKCS#12 encryption salt that is constructed", () => {
    const file = withKeyAlgorithm(plain, (a) => {
      kids(a)[0] = oid("1.2.840.113549.1.12.1.3");
      kids(a)[1] = seq(asn1.create(Class.UNIVERSAL, Type.OCTETSTRING, true, [octets("s")]), int("\x01"));
    });
    expect(refusal(file).message).toBe("the PKCS#12's encryption parameters are not in RFC 7292's form");
  });

  it("a PBKDF2 salt that is constructed", () => {
    const file = withKeyAlgorithm(plain, (a) => {
      kids(at(a, 1, 0, 1))[0] = asn1.create(Class.UNIVERSAL, Type.OCTETSTRING, true, [octets("s")]);
    });
    expect(refusal(file).message).toBe("the PKCS#12's PBKDF2 parameters are not in RFC 8018's form");
  });

  it("encrypted contents node-forge cannot read, or that do not decrypt", () => {
    // an encryption scheme without its IV passes what is counted, not what forge reads
    const noIv = keyInsideEncryptedContentsChanged((algorithm) => {
      at(algorithm, 1, 1).value = [at(algorithm, 1, 1, 0)];
    });
    expect(refusal(noIv)).toMatchObject({
      name: "Pkcs12StructureError",
      message: "the PKCS#12's encrypted contents cannot be read",
    });
    // 17 bytes cannot be whole AES blocks: no key makes them decrypt
    const ragged = keyInsideEncryptedContentsChanged((_algorithm, info) => {
      kids(info)[2] = asn1.create(Class.CONTEXT_SPECIFIC, 0, false, "x".repeat(17));
    });
    const error = refusal(ragged);
    expect(error).toBeInstanceOf(Pkcs12PasswordError);
    expect(error).toMatchObject({
      name: "Pkcs12PasswordError",
      message: "the encrypted contents do not decrypt",
    });
  });
});

/** keyInsideEncryptedContents's file, its EncryptedContentInfo's algorithm (and the info) changed. */
function keyInsideEncryptedContentsChanged(change: (algorithm: Asn1, info: Asn1) => void): Uint8Array {
  return withContents(keyInsideEncryptedContents(certs), (contents) => {
    const info = at(contents, 0, 1, 0, 1);
    change(at(info, 1), info);
  });
}

describe("a mode or an algorithm the check does not take, named", () => {
  const unsupported = (file: Uint8Array, named: string) => {
    const error = refusal(file);
    expect(error).toBeInstanceOf(Pkcs12UnsupportedError);
    expect(error).toBeInstanceOf(Pkcs12RefusedError);
    expect(error.name).toBe("Pkcs12UnsupportedError");
    expect(error.message).toMatch(
      new RegExp(`^the certificate file is not supported: ${named.replace(/[()]/g, "\\$&")};`),
    );
  };

  it("integrity by a public key's signature", () => {
    unsupported(
      withPfx(plain, (p) => (kids(at(p, 1))[0] = oid("1.2.840.113549.1.7.2"))),
      "the PKCS#12 is signed with a public key rather than a password",
    );
  });

  it("contents encrypted with a public key", () => {
    unsupported(
      withContents(plain, (c) => (kids(at(c, 0))[0] = oid("1.2.840.113549.1.7.3"))),
      "the PKCS#12 holds contents encrypted with a public key",
    );
  });

  it("a key derivation other than PBKDF2, and a PKCS#12 encryption nobody writes", () => {
    unsupported(
      withKeyAlgorithm(plain, (a) => (kids(at(a, 1, 0))[0] = oid("1.3.6.1.4.1.11591.4.11"))),
      "its private key derives its key with scrypt (1.3.6.1.4.1.11591.4.11)",
    );
    unsupported(
      withKeyAlgorithm(plain, (a) => (kids(a)[0] = oid("1.2.840.113549.1.12.1.1"))),
      "its private key is encrypted with pbeWithSHAAnd128BitRC4 (1.2.840.113549.1.12.1.1)",
    );
    unsupported(
      withKeyAlgorithm(plain, (a) => (kids(a)[0] = oid("1.2.3.4"))),
      "its private key is encrypted with 1.2.3.4",
    );
  });

  it("names every error class it throws", () => {
    expect(new Pkcs12RefusedError("x").name).toBe("Pkcs12RefusedError");
    expect(new Pkcs12CostError(2, 1)).toMatchObject({ name: "Pkcs12CostError", work: 2, limit: 1 });
  });
});

describe("BER as tools may write it", () => {
  const chunked = (bytes: string) =>
    asn1.create(Class.UNIVERSAL, Type.OCTETSTRING, true, [octets(bytes.slice(0, 7)), octets(bytes.slice(7))]);

  it("reads contents whose OCTET STRINGs come in chunks, encrypted ones too", () => {
    const steps = (file: Uint8Array) => checkPkcs12Cost(file, certs.password).map((d) => d.step);
    const chunkedData = withPfx(plain, (p) => {
      const data = at(p, 1, 1, 0);
      kids(at(p, 1, 1))[0] = chunked(data.value as string);
    });
    expect(steps(chunkedData)).toEqual(["mac", "private key"]);
    const hidden = withContents(keyInsideEncryptedContents(certs), (contents) => {
      const info = at(contents, 0, 1, 0, 1);
      const body = at(info, 2);
      kids(info)[2] = asn1.create(Class.CONTEXT_SPECIFIC, 0, true, [
        octets((body.value as string).slice(0, 16)),
        octets((body.value as string).slice(16)),
      ]);
    });
    expect(steps(hidden)).toEqual(["mac", "encrypted contents", "encrypted contents", "private key"]);
  });

  it("reads a length past the end of the file leniently, as node-forge reads the parts inside", () => {
    const file = encode(decode(plain));
    const longer = Uint8Array.from(file);
    // the PFX's length, one more than there is (its form: 0x30, 0x82, two bytes)
    expect([longer[0], longer[1]]).toEqual([0x30, 0x82]);
    const length = ((longer[2] ?? 0) << 8) + (longer[3] ?? 0) + 1;
    longer[2] = length >> 8;
    longer[3] = length & 0xff;
    expect(checkPkcs12Cost(longer, certs.password).map((d) => d.step)).toEqual(["mac", "private key"]);
  });

  it("takes empty plain contents as holding no key", () => {
    const empty = withContents(plain, (contents) => {
      kids(contents).push(seq(oid("1.2.840.113549.1.7.1"), tagged(octets(""))));
    });
    expect(checkPkcs12Cost(empty, certs.password).map((d) => d.step)).toEqual(["mac", "private key"]);
  });
});
