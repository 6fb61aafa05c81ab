import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { CONTRACT_ROUTES, expectAnswerInContract } from "../../devkit/contract.ts";
import { OPENAPI_FILE, openApiText } from "../../scripts/docs/openapi-document.ts";
import { ROUTE_ERRORS_FILE, routeErrorsText } from "../../scripts/docs/route-errors.ts";

const committed = readFileSync(OPENAPI_FILE, "utf8");
const document = JSON.parse(committed);
const post = (path: string) => document.paths[path].post;

const answer = (status: number, body: unknown, headers: Record<string, string> = { "x-request-id": "r-1" }) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
const errorBody = (code: string) => ({ error: { code, message: "m", request_id: "r-1" } });

describe("docs/openapi.json", () => {
  it("is what `npm run openapi` writes from the routes today", async () => {
    // When this fails: run `npm run openapi` and commit docs/openapi.json.
    expect(committed).toBe(await openApiText());
  });

  it("is what client/openapi.ts, the typed client's types, were generated from", async () => {
    // When this fails: run `npm run openapi` (it writes both files) and commit them.
    const generated = COMMENT_HEADER + astToString(await openapiTS(document));
    expect(readFileSync(new URL("../../client/openapi.ts", import.meta.url), "utf8")).toBe(generated);
  });

  it("is what client/route-errors.ts, the client's per-route error codes, were generated from", () => {
    // When this fails: run `npm run openapi` (it writes both files) and commit them.
    expect(readFileSync(ROUTE_ERRORS_FILE, "utf8")).toBe(routeErrorsText(document));
  });

  it("describes the ten operations of the contract, each with both security headers and Idempotency-Key", () => {
    expect(Object.keys(document.paths).sort()).toEqual(CONTRACT_ROUTES);
    expect(document.openapi).toBe("3.1.0");
    expect(document.servers[0].url).toBe("{base_url}/v1/einvoicing");
    expect(document.security).toEqual([{ bearerAuth: [], apikey: [] }]);
    expect(document.components.securitySchemes.apikey).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "apikey",
    });
    for (const path of Object.keys(document.paths)) {
      expect(post(path).parameters).toEqual([{ $ref: "#/components/parameters/IdempotencyKey" }]);
      expect(post(path).requestBody.content["application/json"].schema.required).toContain("org_id");
      // every route can be refused by the pipeline before its handler runs
      expect(Object.keys(post(path).responses)).toEqual(
        expect.arrayContaining(["200", "400", "401", "403", "413", "415", "500", "503"]),
      );
    }
  });

  it("says who may call each route and which codes each status carries", () => {
    expect(post("/integrations/save").description).toBe("Roles: admin.");
    expect(post("/transmit").description).toBe("Roles: admin, operador.");
    const codes = (path: string, status: number) =>
      post(path).responses[status].content["application/json"].schema.properties.error.properties.code.enum;
    expect(codes("/integrations/save", 422)).toEqual(["business_rule", "credential_rejected"]);
    expect(codes("/refresh", 422)).toEqual(["business_rule", "credential_rejected"]);
    expect(codes("/transmit", 400)).toEqual(["invalid_json", "validation_failed"]);
    expect(post("/transmit").responses[502]).toBeUndefined();
    expect(post("/refresh").responses[429].headers["Retry-After"]).toBeDefined();
  });

  it("holds only schemas a strict JSON Schema 2020-12 validator compiles", () => {
    const ajv = new Ajv2020({ strict: true, validateFormats: false });
    for (const path of Object.keys(document.paths)) {
      ajv.compile(post(path).requestBody.content["application/json"].schema);
      ajv.compile(post(path).responses[200].content["application/json"].schema);
    }
  });
});

describe("the contract check every route test runs", () => {
  it("accepts a declared status with a body of its schema", async () => {
    await expectAnswerInContract("/transmit", answer(200, { results: [] }));
    await expectAnswerInContract("/refresh", answer(404, errorBody("not_found")));
    await expectAnswerInContract("/no-such-route", answer(404, errorBody("not_found")));
  });

  it("refuses a status the route does not declare", async () => {
    await expect(
      expectAnswerInContract("/transmit", answer(502, errorBody("provider_error"))),
    ).rejects.toThrow(/answered 502, which docs\/openapi.json does not declare/);
  });

  it("refuses a code another status owns, a body off its schema, and an answer without x-request-id", async () => {
    await expect(expectAnswerInContract("/refresh", answer(404, errorBody("forbidden")))).rejects.toThrow(
      /schema refuses/,
    );
    await expect(
      expectAnswerInContract("/transmit", answer(200, { results: [], extra: true })),
    ).rejects.toThrow(/schema refuses/);
    await expect(
      expectAnswerInContract(
        "/transmit",
        answer(200, { results: [{ invoice_id: "x", status: "lost", message: "" }] }),
      ),
    ).rejects.toThrow(/schema refuses/);
    await expect(expectAnswerInContract("/transmit", answer(200, { results: [] }, {}))).rejects.toThrow(
      /without x-request-id/,
    );
    await expect(
      expectAnswerInContract(
        "/transmit",
        answer(400, errorBody("validation_failed"), { "x-request-id": "r-2" }),
      ),
    ).rejects.toThrow(/error.request_id r-1 but x-request-id r-2/);
    await expect(expectAnswerInContract("/refresh", answer(429, errorBody("rate_limited")))).rejects.toThrow(
      /429 without Retry-After/,
    );
    await expectAnswerInContract(
      "/refresh",
      answer(429, errorBody("rate_limited"), { "x-request-id": "r-1", "retry-after": "3" }),
    );
  });
});
