/**
 * The result codes are one closed list: docs/api.md's table, the module the code uses and the
 * enums of docs/openapi.json say the same codes; the rules' kind is DIAN's or the outcome's; and
 * the check every route test runs on the API's messages catches Spanish where the API writes.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { spanishMessages } from "../../devkit/contract.ts";
import { authorityRules } from "../../shared/core/documents/outcome.ts";
import { codesOf, RESULT_CODES } from "../../shared/kernel/result-codes.ts";

const apiDoc = readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8");
const openapi = JSON.parse(readFileSync(new URL("../../docs/openapi.json", import.meta.url), "utf8"));

/** docs/api.md's "Result codes" table: each row's cells. */
function documentedRows(): string[][] {
  const section = apiDoc.slice(apiDoc.indexOf("## Result codes"));
  const body = section.slice(0, section.indexOf("\n## ", 1));
  return body
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) =>
      line
        .slice(1, -1)
        .split(" | ")
        .map((cell) => cell.trim()),
    );
}

/** The `code` enum of a route's 200 answer (in `results[]` for /transmit). */
function answeredCodes(path: string): string[] {
  const schema = openapi.paths[path].post.responses["200"].content["application/json"].schema;
  const entry = schema.properties.results?.items ?? schema;
  return entry.properties.code.enum;
}

describe("the result codes", () => {
  it("are listed in docs/api.md, each with what it means and what to do, as the code has them", () => {
    const rows = documentedRows();
    expect(rows.map(([code]) => code)).toEqual(Object.keys(RESULT_CODES).map((code) => `\`${code}\``));
    for (const [code, , meaning, action] of rows) {
      const info = RESULT_CODES[code?.replaceAll("`", "") as keyof typeof RESULT_CODES];
      expect({ meaning, action }).toEqual({ meaning: info.meaning, action: info.action });
    }
  });

  it("are the enums docs/openapi.json declares, each route with its group's", () => {
    for (const path of ["/transmit", "/credit-notes", "/credit-notes/reissue"]) {
      expect(answeredCodes(path)).toEqual(codesOf("transmission"));
    }
    for (const path of ["/refresh", "/credit-notes/refresh"]) {
      expect(answeredCodes(path)).toEqual(codesOf("refresh"));
    }
    for (const path of ["/deliver", "/credit-notes/deliver"]) {
      expect(answeredCodes(path)).toEqual(codesOf("delivery"));
    }
    const answered = new Set([...codesOf("transmission"), ...codesOf("refresh"), ...codesOf("delivery")]);
    // every code is answered somewhere, or kept on a record (and carried by its events)
    expect(Object.keys(RESULT_CODES).filter((code) => !answered.has(code as never))).toEqual([
      "replaced",
      "delivery_failed",
    ]);
    expect(codesOf("stored")).toEqual(expect.arrayContaining(["replaced", "delivery_failed"]));
  });
});

describe("the authority's rules", () => {
  it("keep the kind the provider gave, and otherwise take the outcome's", () => {
    const errors = [
      { code: "FAJ43b", kind: "notificacion" as const, message: "n" },
      { code: "FAU04", message: "r" },
    ];
    expect(authorityRules({ status: "rejected", errors })).toEqual([
      { rule: "FAJ43b", kind: "notificacion", message: "n" },
      { rule: "FAU04", kind: "rechazo", message: "r" },
    ]);
    expect(authorityRules({ status: "accepted", errors: [{ code: "RUT01", message: "x" }] })).toEqual([
      { rule: "RUT01", kind: "notificacion", message: "x" },
    ]);
    expect(authorityRules({ status: "accepted" })).toEqual([]);
  });
});

describe("the check on the API's messages", () => {
  it("finds Spanish in a message the API writes, in an entry or an error", () => {
    expect(
      spanishMessages({
        results: [{ message: "La factura electrónica FE1 ha sido autorizada." }, { message: "fine" }],
      }),
    ).toEqual(["La factura electrónica FE1 ha sido autorizada."]);
    expect(spanishMessages({ error: { code: "x", message: "Documento rechazado" } })).toHaveLength(1);
    expect(spanishMessages({ message: "Rechazo FAJ43b: el nombre no coincide" })).toHaveLength(1);
  });

  it("leaves the authority's and the provider's own words, and English that looks alike, alone", () => {
    expect(
      spanishMessages({
        message: "Sent to facturacion@cliente.com.co.",
        authority_message: "La factura electrónica FE1 ha sido autorizada.",
        authority_rules: [{ rule: "FAJ44b", kind: "rechazo", message: "Documento rechazado" }],
        provider_message: "Mensaje enviado a facturacion@cliente.com.co.",
      }),
    ).toEqual([]);
  });
});
