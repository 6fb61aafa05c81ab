/** The fingerprints a process remembers are bounded in number and in time. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { RememberedFingerprints } from "../../shared/core/documents/remembered-fingerprints.ts";

const entry = (n: number) => ({ inputs: `invoice:${n}`, fingerprint: `f${n}` });

afterEach(() => vi.restoreAllMocks());

describe("RememberedFingerprints", () => {
  it("keeps at most `max` documents, forgetting the least recently used first", () => {
    const remembered = new RememberedFingerprints({ max: 3 });
    for (const n of [1, 2, 3]) remembered.set("invoice", "org", `d${n}`, entry(n));
    remembered.set("invoice", "org", "d1", entry(11)); // written again: now the most recent
    expect(remembered.get("invoice", "org", "d2")).toEqual(entry(2)); // read: now the most recent
    remembered.set("invoice", "org", "d4", entry(4));
    expect(remembered.size).toBe(3);
    expect(remembered.get("invoice", "org", "d3")).toBeUndefined();
    expect(remembered.get("invoice", "org", "d1")).toEqual(entry(11));
    expect(remembered.get("invoice", "org", "d2")).toEqual(entry(2));
    expect(remembered.get("invoice", "org", "d4")).toEqual(entry(4));
  });

  it("forgets an entry once it is older than `ttlMs`", () => {
    let now = 1_000;
    vi.spyOn(performance, "now").mockImplementation(() => now);
    const remembered = new RememberedFingerprints({ ttlMs: 100 });
    remembered.set("invoice", "org", "d1", entry(1));
    now += 99;
    expect(remembered.get("invoice", "org", "d1")).toEqual(entry(1));
    now += 1;
    expect(remembered.get("invoice", "org", "d1")).toBeUndefined();
    expect(remembered.size).toBe(0);
  });

  it("keeps each kind's and each org's documents apart, and nothing with max 0", () => {
    const remembered = new RememberedFingerprints();
    remembered.set("invoice", "org", "same-id", entry(1));
    expect(remembered.get("credit_note", "org", "same-id")).toBeUndefined();
    expect(remembered.get("invoice", "another org", "same-id")).toBeUndefined();
    const none = new RememberedFingerprints({ max: 0 });
    none.set("invoice", "org", "d1", entry(1));
    expect(none.get("invoice", "org", "d1")).toBeUndefined();
  });
});
