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

const clock = createTestClock(LATE_EVENING);
// the service's clock is the test's, on 2026-11-20/21: so is the day FAD09c counts from
const suite = useDianDirectSuite({ clock, standIn: { knobs: { today: "2026-11-21" } } });
const { sent, transmit, draft, stored } = suite;

describe("DIAN direct", () => {
  it("issues a draft dated a week earlier at the clock's instant, and signs it then: DIAN accepts it", async () => {
    clock.set(LATE_EVENING);
    const invoice = await draft();
    const result = await transmit(invoice);
    expect(result, result.message).toMatchObject({ status: "transmitida", code: "accepted" });
    const xml = sent.at(-1);
    expect(text(xml, "cbc:IssueDate")).toBe("2026-11-20");
    expect(text(xml, "cbc:IssueTime")).toBe("23:30:12-05:00");
    expect(text(xml, "xades:SigningTime")).toBe("2026-11-20T23:30:12.345-05:00");
    const row = await stored(invoice);
    expect(row).toMatchObject({ issue_date: "2026-11-20", issue_time: "23:30:12-05" });
    expect(text(xml, "cbc:UUID")).toBe(row?.authority_code);
  });

  it("resends a document DIAN may hold with its issue date, signed when resent; the next day DIAN refuses it (FAD09e), and refused, it is issued anew and accepted", async () => {
    clock.set(LATE_EVENING);
    const invoice = await draft();
    // DIAN fails with a 500: whether it processed the document is unknown
    suite.standIn.setKnobs({ failNext: [{ kind: "error", operation: "SendBillSync" }] });
    expect(await transmit(invoice)).toMatchObject({ status: "en_proceso", code: "outcome_unknown" });
    const first = sent.at(-1);
    expect(text(first, "cbc:IssueDate")).toBe("2026-11-20");

    // the next morning: asked first (DIAN never got it), then resent as it was issued — the same
    // CUFE, a new signature — which DIAN refuses, since it is signed on another day
    clock.set("2026-11-21T14:05:00Z");
    const resent = await transmit(invoice, true);
    expect(resent).toMatchObject({ status: "error", code: "rejected" });
    expect(resent.authority_rules?.map((r) => r.rule)).toContain("FAD09e");
    const second = sent.at(-1);
    expect(text(second, "cbc:UUID")).toBe(text(first, "cbc:UUID"));
    expect(text(second, "cbc:IssueTime")).toBe("23:30:12-05:00");
    expect(text(second, "xades:SigningTime")).toBe("2026-11-21T09:05:00.000-05:00");

    // refused: nothing of it at DIAN can be accepted any more; issued anew today, and accepted
    const anew = await transmit(invoice, true);
    expect(anew).toMatchObject({ status: "transmitida", code: "accepted" });
    expect(anew.message).toMatch(/; issued anew on 2026-11-21 09:05:00-05:00: it was dated 2026-11-20, /);
    const third = sent.at(-1);
    expect(text(third, "cbc:IssueDate")).toBe("2026-11-21");
    expect(text(third, "cbc:IssueTime")).toBe("09:05:00-05:00");
    expect(text(third, "cbc:UUID")).not.toBe(text(first, "cbc:UUID"));
    expect((await stored(invoice))?.authority_code).toBe(text(third, "cbc:UUID"));
  });
});
