import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { ROUTES } from "../../client/index.ts";
import { API_ROUTES, expectAnswerInContract } from "../../devkit/contract.ts";
import { OPENAPI_FILE, openApiText } from "../../scripts/docs/openapi-document.ts";
import { ROUTE_ERRORS_FILE, routeErrorsText } from "../../scripts/docs/route-errors.ts";
import { LOCAL_API_KEY } from "../../scripts/local/local-json.ts";

const committed = readFileSync(OPENAPI_FILE, "utf8");
const document = JSON.parse(committed);
const post = (path: string) => document.paths[path].post;
/** A route's answer for an error status: a shared component, `#/components/responses/<name>`. */
const errorResponse = (path: string, status: number) => {
  const ref: string = post(path).responses[status].$ref;
  return document.components.responses[ref.replace("#/components/responses/", "")];
};

/** Every property of `schema` (and its items and variants, at any depth), with where it is. */
interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  description?: string;
}
function* properties(schema: Schema, at: string): Generator<[string, Schema]> {
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    yield [`${at}.${name}`, property];
    yield* properties(property, `${at}.${name}`);
  }
  if (schema.items) yield* properties(schema.items, `${at}[]`);
  for (const variant of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) yield* properties(variant, at);
}

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

  it("describes the contract's ten operations and the design's eight, each with both security headers and Idempotency-Key", () => {
    expect(Object.keys(document.paths).sort()).toEqual(API_ROUTES);
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

  it("describes what each operation does and shows its call with the typed client; no tag is named as the webhooks section", () => {
    const methodOf = Object.fromEntries(
      Object.entries(ROUTES).map(([method, route]) => [`/${route}`, method]),
    );
    for (const path of Object.keys(document.paths)) {
      const [what, roles, ...example] = post(path).description.split("\n\n");
      expect(what.length, path).toBeGreaterThan(150);
      expect(roles, path).toMatch(/^Roles: /);
      const code = /```ts\n([\s\S]*?)```/.exec(example.join("\n\n"))?.[1];
      expect(code, path).toMatch(new RegExp(`^const answer = await einvoicing\\.${methodOf[path]}\\(\\{\n`));
      // the example's argument is the route's example request
      const literal = code?.slice(code.indexOf("(") + 1, code.lastIndexOf(")")) ?? "";
      expect(JSON.parse(literal.replace(/^(\s*)([A-Za-z_$][\w$]*):/gm, '$1"$2":')), path).toEqual(
        post(path).requestBody.content["application/json"].example ??
          Object.values(
            post(path).requestBody.content["application/json"].examples as Record<string, { value: unknown }>,
          )[0]?.value,
      );
    }
    // the local server fills in Authorize on its /docs page only: the document holds no key or token
    expect(committed).not.toContain(LOCAL_API_KEY);
    expect(committed).not.toMatch(/eyJ[\w-]+\.eyJ/);
    expect(Object.keys(document.webhooks).length).toBeGreaterThan(0);
    expect(document.tags.map((tag: { name: string }) => tag.name)).not.toContain("Webhooks");
    expect(document.tags.map((tag: { name: string }) => tag.name)).toContain("Webhook endpoints");
  });

  it("says who may call each route and which codes each status carries", () => {
    // a paragraph of the description, between what the route does and the client example
    expect(post("/integrations/save").description.split("\n\n")).toContain("Roles: admin.");
    expect(post("/transmit").description.split("\n\n")).toContain("Roles: admin, operador.");
    const codes = (path: string, status: number) =>
      errorResponse(path, status).content["application/json"].schema.properties.error.properties.code.enum;
    expect(codes("/integrations/save", 422)).toEqual(["business_rule", "credential_rejected"]);
    expect(codes("/refresh", 422)).toEqual(["business_rule", "credential_rejected"]);
    expect(codes("/transmit", 400)).toEqual(["invalid_json", "validation_failed"]);
    expect(post("/transmit").responses[502]).toBeUndefined();
    expect(errorResponse("/refresh", 429).headers["Retry-After"]).toBeDefined();
  });

  it("describes every property of every request and answer, and names the correction concepts", () => {
    const undescribed: string[] = [];
    for (const path of Object.keys(document.paths)) {
      const request = post(path).requestBody.content["application/json"].schema;
      const answer200 = post(path).responses[200].content["application/json"].schema;
      for (const [at, property] of [
        ...properties(request, `${path} request`),
        ...properties(answer200, `${path} 200`),
      ]) {
        if (typeof property.description !== "string" || property.description.length < 10)
          undescribed.push(at);
      }
    }
    expect(undescribed).toEqual([]);
    const concept =
      post("/credit-notes").requestBody.content["application/json"].schema.properties.concept_code;
    for (const name of [
      "partial return",
      "annulment",
      "rebate or discount",
      "price adjustment",
      "prompt-payment discount",
      "volume discount",
    ]) {
      expect(concept.description).toContain(name);
    }
  });

  it("shows a request and a 200 example on every route (or named ones, alike), each valid against its schema", () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    /** `example`, or every value of `examples` (the one or the other, as OpenAPI allows). */
    const examplesOf = (content: { example?: unknown; examples?: Record<string, { value: unknown }> }) =>
      content.examples
        ? Object.entries(content.examples).map(([name, e]) => [name, e.value] as const)
        : [["example", content.example] as const];
    for (const path of Object.keys(document.paths)) {
      const request = post(path).requestBody.content["application/json"];
      const ok = post(path).responses[200].content["application/json"];
      expect(request.example === undefined, `${path}: example or examples`).toBe(
        request.examples !== undefined,
      );
      expect(Object.keys(request.examples ?? {}), path).toEqual(Object.keys(ok.examples ?? {}));
      for (const [name, example] of examplesOf(request)) {
        expect(example, `${path} ${name}`).toBeDefined();
        expect(ajv.validate(request.schema, example), `${path} request ${name}`).toBe(true);
      }
      for (const [name, example] of examplesOf(ok)) {
        expect(example, `${path} ${name}`).toBeDefined();
        expect(ajv.validate(ok.schema, example), `${path} 200 ${name}`).toBe(true);
      }
    }
    const save = post("/integrations/save").requestBody.content["application/json"];
    expect(Object.keys(save.examples)).toEqual(["default", "dian"]);
  });

  it("shows under each error status one example per code that status carries there, and no other", () => {
    for (const path of Object.keys(document.paths)) {
      for (const status of Object.keys(post(path).responses).filter((s) => s !== "200")) {
        const content = errorResponse(path, Number(status)).content["application/json"];
        const codes: string[] = content.schema.properties.error.properties.code.enum;
        expect(Object.keys(content.examples), `${path} ${status}`).toEqual(codes);
        for (const [code, example] of Object.entries<{ value: { error: { code: string } } }>(
          content.examples,
        )) {
          expect(example.value.error.code).toBe(code);
        }
      }
    }
    // invalid_json only where it belongs: the 400 for a body that is not JSON
    const holders = Object.entries<{ content: Record<string, { examples: object }> }>(
      document.components.responses,
    )
      .filter(([, response]) => "invalid_json" in (response.content["application/json"]?.examples ?? {}))
      .map(([name]) => name);
    expect(holders).toEqual(["Error400-invalid_json-validation_failed"]);
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
