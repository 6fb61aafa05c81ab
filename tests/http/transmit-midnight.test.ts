/**
 * When a document is issued and signed, in DIAN direct (DESIGN §12, docs/adr/0010): /transmit
 * through the real app and database, a company's DIAN-mode credential, and the DIAN stand-in at the
 * network edge checking what DIAN checks (FAD09e: the issue date is the signing date in Colombia).
 * The service's clock is the test's. A draft dated days earlier is issued and signed at the
 * clock's instant; a resend after an unknown outcome keeps its issue date (its CUFE) and is signed
 * when it is resent, so on a later day DIAN refuses it; refused, it is issued anew and accepted.
 */
import { describe, expect, it } from "vitest";
import { createTestClock } from "../../devkit/clock.ts";
import { text, useDianDirectSuite } from "../support/dian-direct-suite.ts";

/** 23:30:12 in Bogotá on 2026-11-20 (04:30:12 UTC on the 21st). */
const LATE_EVENING = "2026-11-21T04:30:12.345Z";

const base = createTestClock(LATE_EVENING);
/** Reads `first` once, then `later`: a claim just before midnight in Bogotá, its signature just after. */
let script: string[] = [];
const clock = {
  ...base,
  now: () => (script.length > 0 ? new Date(script.shift() as string) : base.now()),
};
const { sent, transmit, draft, stored } = useDianDirectSuite({ clock });

describe("a claim just before midnight in Bogotá, its send just after", () => {
  it("is held back unsent (not signed on another day than its issue date: FAD09e), then issued on the new day", async () => {
    const invoice = await draft();
    const before = sent.length;
    // 23:59:59.900 in Bogotá when claimed; its turn to be signed comes on the 21st
    base.set("2026-11-21T05:00:00.300Z");
    script = ["2026-11-21T04:59:59.900Z"];
    const held = await transmit(invoice);
    // an entry of this call is `error`; the draft itself is released, `pendiente` again
    expect(held).toMatchObject({ status: "error", code: "not_sent_retry" });
    expect(held.message).toContain("FAD09e");
    expect(sent.length).toBe(before); // nothing reached DIAN
    expect(await stored(invoice)).toMatchObject({ status: "pendiente", issue_date: "2026-11-20" });

    const issued = await transmit(invoice);
    expect(issued).toMatchObject({ status: "transmitida", code: "accepted" });
    const xml = sent.at(-1);
    expect(text(xml, "cbc:IssueDate")).toBe("2026-11-21");
    expect(text(xml, "xades:SigningTime")?.slice(0, 10)).toBe("2026-11-21");
  });
});
