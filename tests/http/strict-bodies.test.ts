/**
 * Every route refuses a field it does not know — 400 `validation_failed`, naming the field and,
 * when one is close, the field it probably meant — before anything happens: no row changes, nothing
 * reaches a provider. A misspelled `reisue` must not be read as "no reissue". The route table
 * (tests/support/routes.ts) drives it, so a new route is covered when it is added there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { observe } from "../support/access-matrix.ts";
import { createRouteFixture, EINVOICING_ROUTES, type RouteFixture } from "../support/routes.ts";

let fx: RouteFixture;
beforeAll(async () => {
  fx = await createRouteFixture();
});
afterAll(() => fx?.close());

/** `key` with one letter left out from its middle: the commonest slip. */
const slip = (key: string) =>
  key.slice(0, Math.floor(key.length / 2)) + key.slice(Math.floor(key.length / 2) + 1);

async function refused(path: string, body: Record<string, unknown>) {
  const before = await observe(fx);
  const response = await fx.t.post(path, body, await fx.t.token(fx.home.admin));
  const answer = await response.json();
  expect(await observe(fx)).toEqual(before);
  expect(response.status).toBe(400);
  expect(answer.error.code).toBe("validation_failed");
  return answer.error.details as { field: string; message: string }[];
}

describe.each(EINVOICING_ROUTES)("$path", (route) => {
  it("names a misspelled field and the field it probably meant, and does nothing", async () => {
    const body = await route.body(fx, fx.home);
    const meant = Object.keys(body)
      .filter((key) => key !== "org_id")
      .at(-1) as string;
    const details = await refused(route.path, { ...body, [slip(meant)]: body[meant] });
    expect(details).toEqual([{ field: slip(meant), message: `unknown field; did you mean "${meant}"?` }]);
  });

  it("names a field it does not know at all", async () => {
    const details = await refused(route.path, { ...(await route.body(fx, fx.home)), colour: "red" });
    expect(details).toEqual([{ field: "colour", message: "unknown field" }]);
  });
});

describe("what a caller reads in each detail", () => {
  it('is "required" for a field left out, not what a wrong value would be told', async () => {
    const details = await refused("/refresh", {});
    expect(details).toEqual([
      { field: "org_id", message: "required" },
      { field: "invoice_id", message: "required" },
    ]);
  });

  it("is the project's wording, never zod's", async () => {
    const details = await refused("/transmit", { org_id: fx.home.org.id, invoice_ids: "x", reissue: 1 });
    expect(details).toEqual([
      { field: "invoice_ids", message: "must be a list" },
      { field: "reissue", message: "must be true or false" },
    ]);
  });

  it("says what a free-form object must be, in the project's words", async () => {
    const body = {
      org_id: fx.home.org.id,
      company_id: fx.home.company.id,
      service: "deliver",
      environment: "uat",
    };
    for (const settings of [[1], null, "x"]) {
      const details = await refused("/integrations/save", { ...body, settings });
      expect(details).toEqual([{ field: "settings", message: "must be an object" }]);
    }
  });

  it("answers a body of hundreds of unknown keys with the first twenty, each name cut short", async () => {
    const body: Record<string, unknown> = { org_id: fx.home.org.id, invoice_id: crypto.randomUUID() };
    for (let i = 0; i < 400; i++) body[`${"k".repeat(120)}${i}`] = i; // 50 KB, under the body limit
    const details = await refused("/refresh", body);
    expect(details).toHaveLength(20);
    for (const detail of details) expect(detail.field.length).toBeLessThanOrEqual(81);
  });

  it("refuses /transmit's misspelled reissue on an invoice in error, which stays in error", async () => {
    const invoice = await fx.pending(fx.home);
    await fx.db.superuser("update invoices set status = 'error' where id = $1", [invoice.id]);
    const details = await refused("/transmit", {
      org_id: fx.home.org.id,
      invoice_ids: [invoice.id],
      reisue: true,
    });
    expect(details).toEqual([{ field: "reisue", message: 'unknown field; did you mean "reissue"?' }]);
  });
});
