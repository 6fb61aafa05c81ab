/** The fingerprints a process remembers are bounded: the oldest written is forgotten first. */
import { describe, expect, it } from "vitest";
import { RememberedFingerprints } from "../../shared/core/documents/remembered-fingerprints.ts";

const entry = (n: number) => ({ inputs: `invoice:${n}`, fingerprint: `f${n}` });

describe("RememberedFingerprints", () => {
  it("keeps at most `max` documents, forgetting the oldest written first", () => {
    const remembered = new RememberedFingerprints(3);
    for (const n of [1, 2, 3]) remembered.set("invoice", `d${n}`, entry(n));
    remembered.set("invoice", "d1", entry(11)); // written again: now the newest
    remembered.set("invoice", "d4", entry(4));
    expect(remembered.size).toBe(3);
    expect(remembered.get("invoice", "d2")).toBeUndefined();
    expect(remembered.get("invoice", "d1")).toEqual(entry(11));
    expect(remembered.get("invoice", "d3")).toEqual(entry(3));
    expect(remembered.get("invoice", "d4")).toEqual(entry(4));
  });

  it("keeps each kind's documents apart", () => {
    const remembered = new RememberedFingerprints();
    remembered.set("invoice", "same-id", entry(1));
    expect(remembered.get("credit_note", "same-id")).toBeUndefined();
  });
});
