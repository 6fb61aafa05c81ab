/**
 * node-forge's PBKDF2, routed to the runtime's own (./shared/providers/dian/pbkdf2.ts): the published
 * test vectors, the route taken for the digest objects forge's PKCS#12 reader passes, and the
 * password as UTF-8, as OpenSSL writes it.
 */
import { pbkdf2Sync } from "node:crypto";
import forge from "node-forge";
import { describe, expect, it } from "vitest";
import { nativePbkdf2, useNativePbkdf2 } from "../../shared/providers/dian/pbkdf2.ts";

const hex = (binary: string) => forge.util.bytesToHex(binary);

describe("PBKDF2 for node-forge", () => {
  it("gives RFC 6070's PBKDF2-HMAC-SHA1 and RFC 7914's PBKDF2-HMAC-SHA256 vectors", () => {
    expect(hex(nativePbkdf2("password", "salt", 1, 20, "sha1"))).toBe(
      "0c60c80f961f0e71f3a9b524af6012062fe037a6",
    );
    expect(hex(nativePbkdf2("password", "salt", 4096, 20, "sha1"))).toBe(
      "4b007901b765489abead49d926f721d065a429c1",
    );
    expect(
      hex(nativePbkdf2("passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096, 25, "sha1")),
    ).toBe("3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038");
    expect(hex(nativePbkdf2("passwd", "salt", 1, 64, "sha256"))).toBe(
      "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783",
    );
  });

  it("takes the salt as forge's bytes, every one of them", () => {
    const salt = "\x00\x80\xff\x7f";
    expect(nativePbkdf2("p", salt, 2, 32, "sha512")).toBe(
      pbkdf2Sync("p", Buffer.from([0, 0x80, 0xff, 0x7f]), 2, 32, "sha512").toString("binary"),
    );
  });

  it("is what forge runs for the digest objects its PKCS#12 reader passes, the password as UTF-8", () => {
    useNativePbkdf2();
    useNativePbkdf2(); // twice is once
    for (const digest of ["sha1", "sha256", "sha384", "sha512"] as const) {
      const derived = forge.pkcs5.pbkdf2("contraseña", "salt", 3, 40, forge.md[digest].create());
      // forge's own would have used the ñ's low byte (0xf1): this is its UTF-8 (0xc3 0xb1)
      expect(derived).toBe(
        pbkdf2Sync(Buffer.from("contraseña", "utf8"), "salt", 3, 40, digest).toString("binary"),
      );
    }
  });

  it("installs once: a second call leaves the routed function as it is", () => {
    useNativePbkdf2();
    const routed = forge.pkcs5.pbkdf2;
    useNativePbkdf2();
    expect(forge.pkcs5.pbkdf2).toBe(routed);
  });

  it("leaves to forge's own a call without a digest object, or with a callback", async () => {
    useNativePbkdf2();
    const sha1 = pbkdf2Sync("password", "salt", 2, 20, "sha1").toString("binary");
    expect(forge.pkcs5.pbkdf2("password", "salt", 2, 20)).toBe(sha1);
    expect(forge.pkcs5.pbkdf2("password", "salt", 2, 20, null as unknown as forge.md.MessageDigest)).toBe(
      sha1,
    );
    expect(forge.pkcs5.pbkdf2("password", "salt", 2, 32, "sha256" as forge.md.Algorithm)).toBe(
      pbkdf2Sync("password", "salt", 2, 32, "sha256").toString("binary"),
    );
    const called = await new Promise<string>((resolve, reject) =>
      forge.pkcs5.pbkdf2("password", "salt", 2, 20, forge.md.sha1.create(), (error, key) =>
        error ? reject(error) : resolve(key ?? ""),
      ),
    );
    expect(called).toBe(sha1);
  });

  it("leaves to forge's own a digest PBES2 files do not use", () => {
    useNativePbkdf2();
    const md5 = forge.pkcs5.pbkdf2("password", "salt", 2, 16, forge.md.md5.create());
    expect(md5).toBe(pbkdf2Sync("password", "salt", 2, 16, "md5").toString("binary"));
  });
});
