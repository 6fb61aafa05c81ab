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
import type { Invoice } from "../../devkit/factories.ts";
import { type TransmitResult as Result, text, useDianDirectSuite } from "../support/dian-direct-suite.ts";

/** 23:30:12 in Bogotá on 2026-11-20 (04:30:12 UTC on the 21st). */
const LATE_EVENING = "2026-11-21T04:30:12.345Z";

const clock = createTestClock(LATE_EVENING);
const suite = useDianDirectSuite({ clock });
const { sent, transmit, draft, stored } = suite;

async function refresh(invoice: Invoice): Promise<Result & { authority_code: string | null }> {
  const response = await suite.t.post(
    "/refresh",
    { org_id: suite.tenant.org.id, invoice_id: invoice.id },
    suite.token,
  );
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as Result & { authority_code: string | null };
}

describe("a re-stamped document and the reference of the one it replaced", () => {
  it("after a re-stamp, /refresh asks DIAN about the new CUFE, not the rejected one", async () => {
    clock.set(LATE_EVENING);
    const invoice = await draft();
    suite.standIn.setKnobs({ failNext: [{ kind: "error", operation: "SendBillSync" }] });
    expect(await transmit(invoice)).toMatchObject({ status: "en_proceso" });
    clock.set("2026-11-21T14:05:00Z");
    const rejected = await transmit(invoice, true);
    expect(rejected).toMatchObject({ status: "error", code: "rejected" });
    const oldCufe = text(sent.at(-1), "cbc:UUID");

    // re-stamped and sent; DIAN processes it but its answer is garbage: the outcome is unknown
    suite.standIn.setKnobs({ failNext: [{ kind: "garbage", operation: "SendBillSync" }] });
    expect(await transmit(invoice, true)).toMatchObject({ status: "en_proceso", code: "outcome_unknown" });
    const newCufe = text(sent.at(-1), "cbc:UUID");
    expect(newCufe).not.toBe(oldCufe);
    // the refused document's reference is not kept for the new one (a query by it reads a rejection)
    const row = await suite.db.superuser<{ provider_reference: string | null; issue_date: string }>(
      "select provider_reference, issue_date::text from invoices where id = $1",
      [invoice.id],
    );
    expect(row[0]).toMatchObject({ issue_date: "2026-11-21" });
    expect(row[0]?.provider_reference).not.toBe(oldCufe);

    // DIAN accepted the re-stamped document (new CUFE): that is what /refresh reports
    const refreshed = await refresh(invoice);
    expect(refreshed).toMatchObject({ status: "transmitida", authority_code: newCufe });
    expect(await stored(invoice)).toMatchObject({ issue_date: "2026-11-21", authority_code: newCufe });
  });
});
