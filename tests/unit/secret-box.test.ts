import { describe, expect, it } from "vitest";
import {
  createSecretBox,
  credentialsKeyId,
  keyHint,
  SecretBoxError,
} from "../../shared/crypto/secret-box.ts";

const KEY = btoa(String.fromCharCode(...Array.from({ length: 32 }, (_, i) => i)));
const row = { org_id: "o1", company_id: "c1", service: "adapter-tax", environment: "uat" };

describe("SecretBox", () => {
  it("round-trips a key, and its ciphertext does not contain it", async () => {
    const box = await createSecretBox(KEY);
    const sealed = await box.seal("sk_live_abcdef123456", row);
    expect(sealed).toMatch(/^v1:[\w-]+:[\w-]+$/);
    expect(sealed).not.toContain("sk_live_abcdef123456");
    expect(atob(sealed.split(":")[2]?.replace(/-/g, "+").replace(/_/g, "/") ?? "")).not.toContain("sk_live");
    expect(await box.open(sealed, row)).toBe("sk_live_abcdef123456");
  });

  it("uses a fresh nonce per seal", async () => {
    const box = await createSecretBox(KEY);
    expect(await box.seal("same", row)).not.toBe(await box.seal("same", row));
  });

  it.each([
    ["another org", { ...row, org_id: "o2" }],
    ["another company", { ...row, company_id: "c2" }],
    ["another service", { ...row, service: "deliver" }],
    ["another environment", { ...row, environment: "prd" }],
  ])("refuses to open a ciphertext moved to %s", async (_name, other) => {
    const box = await createSecretBox(KEY);
    const sealed = await box.seal("sk_live_abcdef123456", row);
    await expect(box.open(sealed, other)).rejects.toBeInstanceOf(SecretBoxError);
  });

  it("refuses a tampered ciphertext and a key of the wrong size", async () => {
    const box = await createSecretBox(KEY);
    const sealed = await box.seal("sk_live_abcdef123456", row);
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith("A") ? "B" : "A"}A`;
    await expect(box.open(tampered, row)).rejects.toBeInstanceOf(SecretBoxError);
    await expect(createSecretBox(btoa("short"))).rejects.toBeInstanceOf(SecretBoxError);
  });

  it("hints with the last four characters only for keys long enough to spare them", () => {
    expect(keyHint("sk_sandbox_1234")).toBe("1234");
    expect(keyHint("12345678")).toBe("5678");
    expect(keyHint("1234567")).toBe("");
    expect(keyHint("short")).toBe("");
  });

  it("writes url-safe base64 without padding, whatever the length of what it seals", async () => {
    const box = await createSecretBox(KEY);
    const plaintexts = Array.from({ length: 60 }, (_, n) => "k".repeat(n));
    const sealed = await Promise.all(plaintexts.map((p) => box.seal(p, row)));
    for (const [n, text] of sealed.entries()) {
      expect(text).toMatch(/^v1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/);
      expect(await box.open(text, row)).toBe(plaintexts[n]);
    }
    // across this many random nonces and ciphertexts, both url-safe characters do occur
    expect(sealed.some((text) => text.includes("-"))).toBe(true);
    expect(sealed.some((text) => text.includes("_"))).toBe(true);
  });

  it("takes its key in standard or url-safe base64, padded or not: the same key either way", async () => {
    // bytes chosen so that the standard encoding has both "+" and "/"
    const bytes = Array.from({ length: 32 }, (_, i) => (i % 2 === 0 ? 0xfb : 0xff));
    const standard = btoa(String.fromCharCode(...bytes));
    expect(standard).toMatch(/\+/);
    expect(standard).toMatch(/\//);
    expect(standard).toMatch(/=$/);
    const urlSafe = standard.replace(/\+/g, "-").replace(/\//g, "_");
    const unpadded = urlSafe.replace(/=+$/, "");
    const sealed = await (await createSecretBox(standard)).seal("sk_live_abcdef123456", row);
    for (const key of [urlSafe, unpadded, standard.replace(/=+$/, "")]) {
      expect(await (await createSecretBox(key)).open(sealed, row)).toBe("sk_live_abcdef123456");
    }
    await expect((await createSecretBox(KEY)).open(sealed, row)).rejects.toBeInstanceOf(SecretBoxError);
  });

  it.each([
    ["another version", (s: string) => s.replace(/^v1:/, "v2:")],
    ["no version", (s: string) => s.replace(/^v1:/, "")],
    ["an empty nonce", (s: string) => s.replace(/^v1:[^:]+:/, "v1::")],
    ["no ciphertext", (s: string) => s.replace(/:[^:]+$/, ":")],
    ["only a version", () => "v1"],
    ["nothing", () => ""],
  ])("refuses a ciphertext with %s as an unrecognised format", async (_name, change) => {
    const box = await createSecretBox(KEY);
    const sealed = await box.seal("sk_live_abcdef123456", row);
    await expect(box.open(change(sealed), row)).rejects.toThrow(
      new SecretBoxError("unrecognised ciphertext format"),
    );
  });

  it.each([
    ["characters outside base64", (s: string) => s.replace(/:([^:]+)$/, ":%%%%")],
    ["a nonce of the wrong size", (s: string) => s.replace(/^v1:[^:]+:/, "v1:AAAA:")],
    ["a ciphertext cut short", (s: string) => s.slice(0, -8)],
  ])("refuses a ciphertext with %s as undecryptable", async (_name, change) => {
    const box = await createSecretBox(KEY);
    const sealed = await box.seal("sk_live_abcdef123456", row);
    const error = await box.open(change(sealed), row).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretBoxError);
    expect((error as Error).message).toMatch(/cannot be decrypted/);
  });

  it("refuses a key that is not 32 bytes, or not base64", async () => {
    for (const key of [btoa("x".repeat(31)), btoa("x".repeat(33)), "", "not base64 at all!"]) {
      const error = await createSecretBox(key).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
    }
    const short = await createSecretBox(btoa("x".repeat(31))).catch((e: unknown) => e);
    expect(short).toBeInstanceOf(SecretBoxError);
    expect(short).toMatchObject({
      name: "SecretBoxError",
      message: expect.stringMatching(/must be 32 bytes/),
    });
  });

  it("names each key by 16 hex digits, leading zeros included", async () => {
    // among these sixteen keys, some ids have bytes below 0x10 (written "0x", not "x")
    const keys = Array.from({ length: 16 }, (_, i) => btoa(String.fromCharCode(...new Array(32).fill(i))));
    const ids = await Promise.all(keys.map((key) => credentialsKeyId(key)));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(ids).size).toBe(16);
    expect(ids.some((id) => /^(..)*0/.test(id))).toBe(true);
    // not a plain hash of the key, which could be matched against a hash of it kept anywhere else
    const raw = Uint8Array.from(atob(keys[0] as string), (c) => c.charCodeAt(0));
    const plain = Buffer.from(await crypto.subtle.digest("SHA-256", raw)).toString("hex");
    expect(plain.startsWith(ids[0] as string)).toBe(false);
  });
});
