/**
 * Which software PINs a CUDE gives away (shared/co/software-pin.ts): fewer than 10
 * characters, or digits only and fewer than 16 — and that a 5-digit one really falls to trying
 * PINs against a CUDE, as the warning says.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { computeCude, cudeSource } from "../../shared/co/cufe.ts";
import { GUESSABLE_PIN_WARNING, isGuessablePin } from "../../shared/co/software-pin.ts";

describe("a guessable software PIN", () => {
  it.each([
    ["12345", true],
    ["k7Qp2vXn9", true],
    ["123456789", true],
    ["123456789012345", true],
    // 10 of both cases and digits are 59.5 bits, 16 digits 53: a card's search, not a core's
    ["k7Qp2vXn9L", true],
    ["1234567890123456", true],
    ["a234567890", true],
    // 12 of both cases and digits are 71.5 bits; 13, 77.4
    ["k7Qp2vXn9LmZ", true],
    ["k7Qp2vXn9LmZr", false],
    // 21 digits are 69.8 bits; 22, 73.1
    ["1".repeat(21), true],
    ["1".repeat(22), false],
    // lowercase letters alone: 15 are 70.5 bits, 16 are 75.2
    ["abcdefghijklmno", true],
    ["abcdefghijklmnop", false],
    ["", true],
  ])("%s: %s", (pin, guessable) => {
    expect(isGuessablePin(pin)).toBe(guessable);
  });

  it("is what a member does: a 5-digit PIN comes back from a note's CUDE and the fields the note shows", async () => {
    const note = {
      number: "NC17",
      issueDate: "2026-11-25",
      issueTime: "09:28:06-05:00",
      subtotal: "100000.00",
      iva: "19000.00",
      inc: "0.00",
      ica: "0.00",
      total: "119000.00",
      issuerNit: "900123456",
      buyerId: "222222222222",
      environment: "prd" as const,
    };
    const published = await computeCude({ ...note, softwarePin: "48213" });
    const started = performance.now();
    let found: string | undefined;
    for (let n = 0; n < 100_000 && !found; n++) {
      const pin = String(n).padStart(5, "0");
      const guess = createHash("sha384")
        .update(cudeSource({ ...note, softwarePin: pin }))
        .digest("hex");
      if (guess === published) found = pin;
    }
    expect(found).toBe("48213");
    // one core, under load: about a quarter of a second here
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("says so without the PIN", () => {
    expect(GUESSABLE_PIN_WARNING).toMatch(/^The software PIN is guessable: /);
    expect(GUESSABLE_PIN_WARNING).not.toMatch(/12345\b/);
  });
});
