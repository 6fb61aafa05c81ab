/**
 * What the PKCS#12 reader (shared/providers/dian/certificate.ts) makes of what it opened: the key
 * (shrouded or a plain key bag), the leaf picked by its key wherever it sits in the chain (a
 * certificate forge cannot read skipped), plain refusals, and the certificate's fields as the
 * signature and DIAN read them (RFC 4514 names escaped, the NIT where DIAN looks).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import forge from "node-forge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCertificates, type TestCertificates } from "../../devkit/dian/certificates.ts";
import { pkcs12File } from "../../devkit/dian/pkcs12-files.ts";
import {
  CertificateError,
  describe as describeCertificate,
  readPkcs12,
} from "../../shared/providers/dian/certificate.ts";

type Asn1 = forge.asn1.Asn1;
const { asn1 } = forge;
const { Class, Type } = asn1;
const seq = (...items: Asn1[]) => asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, items);
const oid = (id: string) => asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer(id).getBytes());
const octets = (bytes: string) => asn1.create(Class.UNIVERSAL, Type.OCTETSTRING, false, bytes);
const tagged = (value: Asn1) => asn1.create(Class.CONTEXT_SPECIFIC, 0, true, [value]);
const toBytes = (node: Asn1) => Uint8Array.from(asn1.toDer(node).getBytes(), (c) => c.charCodeAt(0));
const DATA = "1.2.840.113549.1.7.1";
const CERT_BAG = "1.2.840.113549.1.12.10.1.3";
const KEY_BAG = "1.2.840.113549.1.12.10.1.1";
const SHROUDED_KEY_BAG = "1.2.840.113549.1.12.10.1.2";
const X509 = "1.2.840.113549.1.9.22.1";

let dir: string;
let certs: TestCertificates;
let ca: forge.pki.Certificate;
let leaf: forge.pki.Certificate;
let key: forge.pki.rsa.PrivateKey;
/** An EC certificate, which node-forge cannot read (its bag's cert is null). */
let ecCertificate: string;

beforeAll(() => {
  certs = createTestCertificates({ nit: "900555111" });
  const opened = forge.pkcs12.pkcs12FromAsn1(
    asn1.fromDer(forge.util.createBuffer(Buffer.from(certs.p12).toString("binary"))),
    false,
    certs.password,
  );
  const bags = opened.getBags({ bagType: CERT_BAG })[CERT_BAG] ?? [];
  [leaf, ca] = bags.map((b: { cert?: forge.pki.Certificate | null }) => b.cert as forge.pki.Certificate) as [
    forge.pki.Certificate,
    forge.pki.Certificate,
  ];
  key = opened.getBags({ bagType: SHROUDED_KEY_BAG })[SHROUDED_KEY_BAG]?.[0]?.key as forge.pki.rsa.PrivateKey;
  dir = mkdtempSync(join(tmpdir(), "einv-p12-reader-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      join(dir, "ec.key"),
      "-out",
      join(dir, "ec.der"),
      "-outform",
      "DER",
      "-subj",
      "/CN=ec",
      "-days",
      "2",
    ],
    { stdio: "ignore" },
  );
  ecCertificate = readFileSync(join(dir, "ec.der")).toString("binary");
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const certBag = (der: string) => seq(oid(CERT_BAG), tagged(seq(oid(X509), tagged(octets(der)))));
const derOf = (cert: forge.pki.Certificate) => asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes();
const contents = (...bags: Asn1[]) => seq(oid(DATA), tagged(octets(asn1.toDer(seq(...bags)).getBytes())));

/** A PFX without a MAC holding `bags` in one plain SafeContents. */
function pfxOf(...bags: Asn1[]): Uint8Array {
  const authSafe = asn1.toDer(seq(contents(...bags))).getBytes();
  return toBytes(
    seq(asn1.create(Class.UNIVERSAL, Type.INTEGER, false, "\x03"), seq(oid(DATA), tagged(octets(authSafe)))),
  );
}
const keyBag = () => seq(oid(KEY_BAG), tagged(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(key))));

describe("what the reader makes of what it opened", () => {
  it("takes a plain key bag, and picks the key's certificate wherever the chain puts it", () => {
    const read = readPkcs12(pfxOf(certBag(derOf(ca)), keyBag(), certBag(derOf(leaf))), "whatever");
    expect(read.certificate.nit).toBe("900555111");
    // the leaf itself, not the CA before it (which may carry the same NIT and exponent)
    expect(read.certificate.serialNumber).toBe(BigInt(`0x${leaf.serialNumber}`).toString(10));
    expect(leaf.serialNumber).not.toBe(ca.serialNumber);
    expect(read.keyBits).toBe(2048);
  });

  it("skips a certificate node-forge cannot read (an EC one) beside the leaf", () => {
    expect(
      readPkcs12(pfxOf(certBag(ecCertificate), keyBag(), certBag(derOf(leaf))), "x").certificate.nit,
    ).toBe("900555111");
  });

  it("refuses one with no key, or no certificate of its key", () => {
    expect(() => readPkcs12(pfxOf(certBag(derOf(leaf))), "x")).toThrow(
      new CertificateError("the PKCS#12 holds no RSA private key"),
    );
    expect(() => readPkcs12(pfxOf(keyBag(), certBag(derOf(ca)), certBag(ecCertificate)), "x")).toThrow(
      new CertificateError("the PKCS#12 holds no certificate for its private key"),
    );
  });

  it("tells a wrong password from a file node-forge cannot read", () => {
    // the MAC does not verify: the password
    expect(() => readPkcs12(certs.p12, "otra")).toThrow(
      new CertificateError("the certificate's password is wrong or the file is not a PKCS#12"),
    );
    // a bag type node-forge does not read (a CRL bag): not a PKCS#12 it opens
    const crl = seq(oid("1.2.840.113549.1.12.10.1.4"), tagged(seq(oid("1.2.3"), tagged(octets("x")))));
    const error = (() => {
      try {
        readPkcs12(pfxOf(keyBag(), certBag(derOf(leaf)), crl), "x");
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(CertificateError);
    expect(error).toMatchObject({
      name: "CertificateError",
      message: "the file is not a PKCS#12 certificate",
    });
  });

  it("reads a file whose key sits in contents node-forge parses leniently", () => {
    const file = pkcs12File(certs, { mac: null, key: { algorithm: "aes256", prf: "sha256", iterations: 1 } });
    expect(readPkcs12(file, certs.password).certificate.nit).toBe("900555111");
  });
});

describe("a certificate's fields", () => {
  const certificate = (attributes: forge.pki.CertificateField[]) => {
    const cert = forge.pki.createCertificate();
    cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
    cert.serialNumber = "00";
    cert.validity.notBefore = new Date("2026-01-01T00:00:00Z");
    cert.validity.notAfter = new Date("2027-01-01T00:00:00Z");
    cert.setSubject(attributes);
    cert.setIssuer([{ shortName: "CN", value: "CA" }]);
    cert.sign(key, forge.md.sha256.create());
    return cert;
  };

  it("are the DER's SHA-256 in base64, the serial in decimal, the names escaped as RFC 4514 says", () => {
    const cert = certificate([
      { shortName: "CN", value: 'Empresa, S.A.S. + "Uno" <a>; b=c\\d' },
      { shortName: "O", value: "#Almacén " },
      { shortName: "OU", value: " Ventas" },
    ]);
    const info = describeCertificate(cert);
    const der = Buffer.from(derOf(cert), "binary");
    expect(info.sha256).toBe(createHash("sha256").update(der).digest("base64"));
    expect(info.base64).toBe(der.toString("base64"));
    expect(info.serialNumber).toBe("0");
    expect(info.subject).toBe(
      'OU=\\ Ventas,O=\\#Almacén\\ ,CN=Empresa\\, S.A.S. \\+ \\"Uno\\" \\<a\\>\\; b\\=c\\\\d',
    );
    expect(info.issuerName).toBe("CN=CA");
    expect(info.notAfter.toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });

  it("take the NIT where DIAN looks, in its order, past an attribute without one", () => {
    const nit = (attributes: forge.pki.CertificateField[]) =>
      describeCertificate(certificate(attributes)).nit;
    expect(
      nit([
        { type: "2.5.4.5", value: "ABCDE" },
        { type: "2.5.4.97", value: "NTRCO-900123456-7" },
      ]),
    ).toBe("900123456");
    expect(
      nit([
        { type: "2.5.4.5", value: "800197268-4" },
        { type: "1.3.6.1.4.1.23267.2.3", value: "901234567" },
      ]),
    ).toBe("901234567");
    expect(nit([{ type: "2.5.4.5", value: "1234" }])).toBeNull();
    expect(nit([{ shortName: "CN", value: "900123456" }])).toBeNull();
  });
});
