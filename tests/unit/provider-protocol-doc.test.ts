/**
 * docs/provider-protocol.md's submit example is a request our schema takes and whose amounts our
 * own second reading finds right (shared/core/documents/arithmetic.ts), so the page cannot drift
 * from the protocol it explains.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkedRequest } from "../../shared/core/documents/request.ts";

const page = readFileSync(new URL("../../docs/provider-protocol.md", import.meta.url), "utf8");

function exampleAfter(heading: string): unknown {
  const from = page.indexOf(heading);
  const block = /```json\n([\s\S]*?)\n```/.exec(page.slice(from));
  if (from < 0 || !block?.[1]) throw new Error(`no JSON example after ${heading}`);
  return JSON.parse(block[1]);
}

describe("docs/provider-protocol.md", () => {
  it("shows a submit body the protocol accepts, its amounts right to the cent", () => {
    const example = exampleAfter("### `POST /documents`: submit a document");
    const checked = checkedRequest(() => example, { exactLineTaxes: true });
    expect(checked.ok ? [] : checked.problems).toEqual([]);
  });

  it("would show a wrong amount: the check reads them", () => {
    const example = exampleAfter("### `POST /documents`: submit a document") as {
      totals: { net_payable_amount: string };
    };
    const wrong = { ...example, totals: { ...example.totals, net_payable_amount: "2850851.00" } };
    expect(checkedRequest(() => wrong, { exactLineTaxes: true }).ok).toBe(false);
  });
});
