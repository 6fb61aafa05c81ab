/** The composition root's SecretBox remembers opened keys per identity and ciphertext, briefly. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { rememberOpened } from "../../shared/crypto/remembered-box.ts";
import { createSecretBox, type SecretBox, SecretBoxError } from "../../shared/crypto/secret-box.ts";

const KEY = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
const identity = { org_id: "o1", company_id: "c1", service: "adapter-tax", environment: "uat" };

async function counted(): Promise<{ box: SecretBox; opens: () => number }> {
  const real = await createSecretBox(KEY);
  let opens = 0;
  return {
    box: {
      ...real,
      open: (sealed, id) => {
        opens++;
        return real.open(sealed, id);
      },
    },
    opens: () => opens,
  };
}

afterEach(() => vi.useRealTimers());

describe("rememberOpened", () => {
  it("opens a ciphertext once for its identity, and again for a new ciphertext of the same credential", async () => {
    const { box, opens } = await counted();
    const remembered = rememberOpened(box);
    const first = await box.seal("sk_first_key_123", identity);
    expect(await remembered.open(first, identity)).toBe("sk_first_key_123");
    expect(await remembered.open(first, identity)).toBe("sk_first_key_123");
    expect(opens()).toBe(1);
    const resaved = await box.seal("sk_second_key_456", identity);
    expect(await remembered.open(resaved, identity)).toBe("sk_second_key_456");
    expect(opens()).toBe(2);
  });

  it("never answers for another identity: the same ciphertext elsewhere is opened (and refused) afresh", async () => {
    const { box, opens } = await counted();
    const remembered = rememberOpened(box);
    const sealed = await box.seal("sk_first_key_123", identity);
    await remembered.open(sealed, identity);
    await expect(remembered.open(sealed, { ...identity, org_id: "o2" })).rejects.toBeInstanceOf(
      SecretBoxError,
    );
    await expect(remembered.open(sealed, { ...identity, org_id: "o2" })).rejects.toBeInstanceOf(
      SecretBoxError,
    );
    expect(opens()).toBe(3);
  });

  it("forgets after its time to live, and keeps at most `max` keys", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { box, opens } = await counted();
    const remembered = rememberOpened(box, { max: 2, ttlMs: 1000 });
    const sealed = await Promise.all(
      ["sk_key_000000a", "sk_key_000000b", "sk_key_000000c"].map((k) => box.seal(k, identity)),
    );
    const [a = "", b = "", c = ""] = sealed;
    await remembered.open(a, identity);
    vi.advanceTimersByTime(1001);
    await remembered.open(a, identity);
    expect(opens()).toBe(2);
    await remembered.open(b, identity);
    await remembered.open(c, identity); // evicts a, the oldest
    await remembered.open(b, identity);
    expect(opens()).toBe(4);
    await remembered.open(a, identity);
    expect(opens()).toBe(5);
  });
});
