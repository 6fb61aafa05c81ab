/**
 * scripts/docs/route-errors.ts: the client's per-route error codes read from an OpenAPI document,
 * whichever way the document spells them (inline, through `$ref`, narrowed by `allOf`, widened by
 * `oneOf`), and a document that does not say them refused rather than guessed.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OPENAPI_FILE } from "../../scripts/docs/openapi-document.ts";
import { routeErrorsText } from "../../scripts/docs/route-errors.ts";

const ERROR = {
  type: "object",
  properties: {
    error: { type: "object", properties: { code: { type: "string", enum: ["a", "b", "c", "d"] } } },
  },
};
const narrowed = (...codes: string[]) => ({
  allOf: [{ $ref: "#/components/schemas/Error" }],
  properties: { error: { properties: { code: { enum: codes } } } },
});
const json = (schema: object) => ({ content: { "application/json": { schema } } });
const documentWith = (responses: object) => ({
  paths: {
    "/credit-notes/reissue": { post: { responses: { 200: json({ type: "object" }), ...responses } } },
  },
  components: { schemas: { Error: ERROR }, responses: { Forbidden: json(narrowed("b")) } },
});

/** The codes the generated text gives a route. */
function codesIn(text: string, route: string): string[] {
  const entry = new RegExp(`^  "?${route}"?:\\n((?:    \\| .+\\n)+)`, "m").exec(text)?.[1] ?? "";
  return [...entry.matchAll(/"([^"]+)"/g)].map((m) => m[1] as string);
}

describe("routeErrorsText", () => {
  it("gives each route the codes of all its error statuses, and not the 200's", () => {
    const text = routeErrorsText(
      documentWith({ 403: { $ref: "#/components/responses/Forbidden" }, 409: json(narrowed("c", "a")) }),
    );
    expect(codesIn(text, "credit-notes/reissue")).toEqual(["a", "b", "c"]);
    expect(text).toMatch(/^export interface RouteErrorCodes \{$/m);
  });

  it("intersects allOf parts and unites oneOf alternatives", () => {
    const text = routeErrorsText(
      documentWith({
        422: json({ allOf: [narrowed("a", "b", "c"), narrowed("b", "c", "z")] }),
        502: json({ oneOf: [narrowed("d"), narrowed("a")] }),
      }),
    );
    expect(codesIn(text, "credit-notes/reissue")).toEqual(["a", "b", "c", "d"]);
  });

  it("refuses a route whose error answer does not say its codes, or that has none", () => {
    expect(() => routeErrorsText(documentWith({ 500: json({ type: "object" }) }))).toThrow(
      /credit-notes\/reissue 500: the document does not say which codes it carries/,
    );
    expect(() => routeErrorsText(documentWith({ 500: { $ref: "#/components/responses/Nope" } }))).toThrow(
      /names nothing/,
    );
    expect(() => routeErrorsText(documentWith({}))).toThrow(/declares no error answer/);
  });

  it("gives the committed document's routes the codes their statuses declare", () => {
    const text = routeErrorsText(JSON.parse(readFileSync(OPENAPI_FILE, "utf8")));
    // per-document outcomes of /transmit are in its 200 body, never an error status
    expect(codesIn(text, "transmit")).not.toContain("not_found");
    expect(codesIn(text, "transmit")).toContain("validation_failed");
    expect(codesIn(text, "credit-notes/reissue")).toEqual(
      expect.arrayContaining(["invalid_state", "not_found"]),
    );
    expect(codesIn(text, "integrations/save")).toContain("credential_rejected");
  });
});
