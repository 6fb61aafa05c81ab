/**
 * PKCS#12 files of unusual or hostile shapes, for the tests of what opening one may cost
 * (shared/providers/dian/pkcs12-cost.ts): iteration counts rewritten in place (a file declaring a
 * billion iterations cannot be made by deriving them), and a file whose private key sits inside
 * encrypted SafeContents, where its count cannot be read without the password. Built with
 * node-forge's ASN.1 and PBE primitives (RFC 7292 §4 for the layout).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import forge from "node-forge";
import type { TestCertificates } from "./certificates.ts";

type Asn1 = forge.asn1.Asn1;
const { asn1 } = forge;
const { Class, Type } = asn1;

const OIDS = {
  data: "1.2.840.113549.1.7.1",
  encryptedData: "1.2.840.113549.1.7.6",
  shroudedKeyBag: "1.2.840.113549.1.12.10.1.2",
  certBag: "1.2.840.113549.1.12.10.1.3",
  x509: "1.2.840.113549.1.9.22.1",
  pbes2: "1.2.840.113549.1.5.13",
  sha256: "2.16.840.1.101.3.4.2.1",
};

const sequence = (...items: Asn1[]) => asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, items);
const oid = (id: string) => asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer(id).getBytes());
const octets = (bytes: string) => asn1.create(Class.UNIVERSAL, Type.OCTETSTRING, false, bytes);
const explicit = (value: Asn1) => asn1.create(Class.CONTEXT_SPECIFIC, 0, true, [value]);

/** An INTEGER of any size (forge's own encoder stops at 32 bits). */
export function integer(n: bigint): Asn1 {
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  if (Number.parseInt(hex.slice(0, 2), 16) & 0x80) hex = `00${hex}`;
  return asn1.create(Class.UNIVERSAL, Type.INTEGER, false, forge.util.hexToBytes(hex));
}

const children = (node: Asn1) => node.value as Asn1[];
const at = (node: Asn1, ...path: number[]) => path.reduce((n, i) => children(n)[i] as Asn1, node);

/** Sets the iteration count of a password-based encryption's AlgorithmIdentifier. */
function setIterations(algorithm: Asn1, count: bigint): void {
  const params = at(algorithm, 1);
  if (asn1.derToOid(at(algorithm, 0).value as string) === OIDS.pbes2) {
    children(at(params, 0, 1))[1] = integer(count); // PBKDF2-params { salt, iterationCount, … }
  } else {
    children(params)[1] = integer(count); // pkcs-12PbeParams { salt, iterations }
  }
}

const toBytes = (node: Asn1) => Uint8Array.from(asn1.toDer(node).getBytes(), (c) => c.charCodeAt(0));
const fromBytes = (bytes: Uint8Array) =>
  asn1.fromDer(forge.util.createBuffer(String.fromCharCode(...bytes)), false);

/**
 * `p12` (as devkit/dian/certificates.ts makes it: a shrouded key and the certificates in plain
 * SafeContents, a MAC) with the MAC's and the key's iteration counts rewritten. The MAC then no
 * longer verifies and the key no longer decrypts: only a reader that stops before deriving can say
 * anything but "wrong password".
 */
export function withIterations(p12: Uint8Array, counts: { mac?: bigint; key?: bigint }): Uint8Array {
  const pfx = fromBytes(p12);
  if (counts.mac !== undefined) children(at(pfx, 2))[2] = integer(counts.mac);
  if (counts.key !== undefined) {
    const authSafe = at(pfx, 1, 1, 0);
    const contents = asn1.fromDer(authSafe.value as string, false);
    for (const info of children(contents)) {
      const safe = asn1.fromDer(at(info, 1, 0).value as string, false);
      for (const bag of children(safe)) {
        if (asn1.derToOid(at(bag, 0).value as string) === OIDS.shroudedKeyBag) {
          setIterations(at(bag, 1, 0, 0), counts.key);
        }
      }
      at(info, 1, 0).value = asn1.toDer(safe).getBytes();
    }
    authSafe.value = asn1.toDer(contents).getBytes();
  }
  return toBytes(pfx);
}

/**
 * `p12` with its password-protected parts repeated `times` times over: each ContentInfo holding
 * encrypted SafeContents (`"encrypted contents"`), or each shrouded key bag inside the plain ones
 * (`"keys"`). The MAC then no longer verifies: only a reader that counts the parts before deriving
 * anything can say more than "wrong password".
 */
export function withPartsRepeated(
  p12: Uint8Array,
  part: "encrypted contents" | "keys",
  times: number,
): Uint8Array {
  const pfx = fromBytes(p12);
  const authSafe = at(pfx, 1, 1, 0);
  const contents = asn1.fromDer(authSafe.value as string, false);
  const repeat = (items: Asn1[], which: (item: Asn1) => boolean) =>
    items.flatMap((item) => (which(item) ? Array.from({ length: times }, () => item) : [item]));
  const typeOf = (node: Asn1) => asn1.derToOid(at(node, 0).value as string);
  if (part === "encrypted contents") {
    contents.value = repeat(children(contents), (info) => typeOf(info) === OIDS.encryptedData);
  } else {
    for (const info of children(contents)) {
      if (typeOf(info) !== OIDS.data) continue;
      const safe = asn1.fromDer(at(info, 1, 0).value as string, false);
      safe.value = repeat(children(safe), (bag) => typeOf(bag) === OIDS.shroudedKeyBag);
      at(info, 1, 0).value = asn1.toDer(safe).getBytes();
    }
  }
  authSafe.value = asn1.toDer(contents).getBytes();
  return toBytes(pfx);
}

/**
 * A PKCS#12 whose one SafeContents is encrypted (PBES2, AES-256, 2,048 iterations) and holds both the
 * shrouded key and the certificates, with a valid HMAC-SHA-256 MAC: the key's count is out of sight
 * until the contents are decrypted. `keyIterations` rewrites that count (the key then no longer
 * decrypts); left out, the file opens.
 */
export function keyInsideEncryptedContents(
  certs: Pick<TestCertificates, "p12" | "password">,
  options: { keyIterations?: bigint } = {},
): Uint8Array {
  const password = certs.password;
  const opened = forge.pkcs12.pkcs12FromAsn1(fromBytes(certs.p12), false, password);
  const keyBag = opened.getBags({ bagType: OIDS.shroudedKeyBag })[OIDS.shroudedKeyBag]?.[0];
  const certBags = opened.getBags({ bagType: OIDS.certBag })[OIDS.certBag] ?? [];
  if (!keyBag?.key) throw new Error("the test PKCS#12 holds no key");
  const pbe = { algorithm: "aes256", count: 2048, prfAlgorithm: "sha256" } as const;
  const keyInfo = forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(keyBag.key));
  const shrouded = forge.pki.encryptPrivateKeyInfo(keyInfo, password, pbe);
  if (options.keyIterations !== undefined) setIterations(at(shrouded, 0), options.keyIterations);
  const bags = [
    sequence(oid(OIDS.shroudedKeyBag), explicit(shrouded)),
    ...certBags.map((bag) =>
      sequence(
        oid(OIDS.certBag),
        explicit(
          sequence(
            oid(OIDS.x509),
            explicit(
              octets(asn1.toDer(forge.pki.certificateToAsn1(bag.cert as forge.pki.Certificate)).getBytes()),
            ),
          ),
        ),
      ),
    ),
  ];
  // the SafeContents encrypted the way a shrouded key is (the same AlgorithmIdentifier and cipher)
  const sealed = forge.pki.encryptPrivateKeyInfo(sequence(...bags), password, pbe);
  const encryptedData = sequence(
    integer(0n),
    sequence(
      oid(OIDS.data),
      at(sealed, 0),
      asn1.create(Class.CONTEXT_SPECIFIC, 0, false, at(sealed, 1).value as string),
    ),
  );
  const authSafe = asn1
    .toDer(sequence(sequence(oid(OIDS.encryptedData), explicit(encryptedData))))
    .getBytes();
  const salt = forge.random.getBytesSync(16);
  const macKey = forge.pkcs12.generateKey(
    password,
    forge.util.createBuffer(salt),
    3,
    2048,
    32,
    forge.md.sha256.create(),
  );
  const hmac = forge.hmac.create();
  hmac.start(forge.md.sha256.create(), macKey.getBytes());
  hmac.update(authSafe);
  const macData = sequence(
    sequence(
      sequence(oid(OIDS.sha256), asn1.create(Class.UNIVERSAL, Type.NULL, false, "")),
      octets(hmac.digest().getBytes()),
    ),
    octets(salt),
    integer(2048n),
  );
  return toBytes(sequence(integer(3n), sequence(oid(OIDS.data), explicit(octets(authSafe))), macData));
}

/** What `pkcs12File` builds: each password-based step's algorithm and iteration count. */
export interface Pkcs12Shape {
  /** The MAC (a digest forge reads: md5 is there to be refused); null for none. */
  mac: { digest: "sha1" | "sha256" | "sha384" | "sha512" | "md5"; iterations: number } | null;
  /**
   * The shrouded key's encryption, as node-forge writes it: PBES2 with PBKDF2 (`prf`) and AES or
   * single DES, or `3des`, PKCS#12's pbeWithSHAAnd3-KeyTripleDES-CBC (SHA-1 only).
   */
  key: {
    algorithm: "aes128" | "aes192" | "aes256" | "des" | "3des";
    prf?: "sha1" | "sha224" | "sha256" | "sha384" | "sha512";
    iterations: number;
  };
  /** The certificates in contents encrypted the same way (`encrypted`), else in plain contents. */
  certificates?: { encrypted: Pkcs12Shape["key"] } | "plain";
  /** Extra certificate bags, to make the file as large as the route allows (each is `certs`' leaf again). */
  padding?: number;
}

/**
 * A PKCS#12 of `certs`' key and certificates, every step derived for real with the algorithms and
 * counts of `shape` (so a high count takes as long to build as to open). For a hostile count build
 * with a low one and rewrite it with `withIterations`.
 */
export function pkcs12File(
  certs: Pick<TestCertificates, "p12" | "password">,
  shape: Pkcs12Shape,
): Uint8Array {
  const password = certs.password;
  const opened = forge.pkcs12.pkcs12FromAsn1(fromBytes(certs.p12), false, password);
  const keyBag = opened.getBags({ bagType: OIDS.shroudedKeyBag })[OIDS.shroudedKeyBag]?.[0];
  const certBags = opened.getBags({ bagType: OIDS.certBag })[OIDS.certBag] ?? [];
  if (!keyBag?.key) throw new Error("the test PKCS#12 holds no key");
  // forge writes single DES too, though its types leave it out
  const pbe = (step: Pkcs12Shape["key"]) =>
    ({
      algorithm: step.algorithm,
      count: step.iterations,
      prfAlgorithm: step.prf ?? "sha1",
    }) as unknown as forge.pki.EncryptionOptions;
  const keyInfo = forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(keyBag.key));
  const shrouded = forge.pki.encryptPrivateKeyInfo(keyInfo, password, pbe(shape.key));
  const certificateBag = (cert: forge.pki.Certificate) =>
    sequence(
      oid(OIDS.certBag),
      explicit(
        sequence(oid(OIDS.x509), explicit(octets(asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes()))),
      ),
    );
  const leaf = certBags[0]?.cert as forge.pki.Certificate;
  const certificateBags = [
    ...certBags.map((bag) => certificateBag(bag.cert as forge.pki.Certificate)),
    ...Array.from({ length: shape.padding ?? 0 }, () => certificateBag(leaf)),
  ];
  const plain = (bags: Asn1[]) =>
    sequence(oid(OIDS.data), explicit(octets(asn1.toDer(sequence(...bags)).getBytes())));
  const contents = [plain([sequence(oid(OIDS.shroudedKeyBag), explicit(shrouded))])];
  if (shape.certificates !== undefined && shape.certificates !== "plain") {
    // encrypted the way a shrouded key is (the same AlgorithmIdentifier and cipher)
    const sealed = forge.pki.encryptPrivateKeyInfo(
      sequence(...certificateBags),
      password,
      pbe(shape.certificates.encrypted),
    );
    const encryptedData = sequence(
      integer(0n),
      sequence(
        oid(OIDS.data),
        at(sealed, 0),
        asn1.create(Class.CONTEXT_SPECIFIC, 0, false, at(sealed, 1).value as string),
      ),
    );
    contents.push(sequence(oid(OIDS.encryptedData), explicit(encryptedData)));
  } else {
    contents.push(plain(certificateBags));
  }
  const authSafe = asn1.toDer(sequence(...contents)).getBytes();
  const pfx = [integer(3n), sequence(oid(OIDS.data), explicit(octets(authSafe)))];
  if (shape.mac) {
    const md = forge.md[shape.mac.digest].create();
    const salt = forge.random.getBytesSync(16);
    const macKey = forge.pkcs12.generateKey(
      password,
      forge.util.createBuffer(salt),
      3,
      shape.mac.iterations,
      md.digestLength,
      md,
    );
    const hmac = forge.hmac.create();
    hmac.start(forge.md[shape.mac.digest].create(), macKey.getBytes());
    hmac.update(authSafe);
    pfx.push(
      sequence(
        sequence(
          sequence(oid(DIGEST_OIDS[shape.mac.digest]), asn1.create(Class.UNIVERSAL, Type.NULL, false, "")),
          octets(hmac.digest().getBytes()),
        ),
        octets(salt),
        integer(BigInt(shape.mac.iterations)),
      ),
    );
  }
  return toBytes(sequence(...pfx));
}

const DIGEST_OIDS = {
  sha1: "1.3.14.3.2.26",
  sha256: "2.16.840.1.101.3.4.2.1",
  sha384: "2.16.840.1.101.3.4.2.2",
  sha512: "2.16.840.1.101.3.4.2.3",
  md5: "1.2.840.113549.2.5",
} as const;

/**
 * PKCS#12 files as OpenSSL itself writes them (the `openssl` command line), password `s3creta`
 * unless another is given (as UTF-8, as a terminal gives it): a self-signed RSA-2048 certificate
 * with `subject`, exported once per entry of `files` with that entry's extra `pkcs12 -export`
 * arguments, into `dir`.
 */
export function opensslPkcs12Files(
  dir: string,
  subject: string,
  files: Record<string, string[]>,
  password = "s3creta",
): void {
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "ignore" });
  const [key, cert] = [join(dir, "key.pem"), join(dir, "cert.pem")];
  openssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    key,
    "-out",
    cert,
    "-subj",
    subject,
    "-days",
    "30",
  );
  for (const [name, extra] of Object.entries(files)) {
    openssl(
      "pkcs12",
      "-export",
      ...extra,
      "-inkey",
      key,
      "-in",
      cert,
      "-passout",
      `pass:${password}`,
      "-out",
      join(dir, name),
    );
  }
}
