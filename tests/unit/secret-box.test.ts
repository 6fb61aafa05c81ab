import { describe, expect, it } from "vitest";
import { createSecretBox, keyHint, SecretBoxError } from "../../shared/crypto/secret-box.ts";

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
    expect(keyHint("short")).toBe("");
  });
});
