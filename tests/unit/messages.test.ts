/**
 * Sentences for people: every result code (shared/kernel/result-codes.ts), every error code
 * (shared/kernel/errors.ts, ERROR_STATUS) and every client code has a Spanish and an English
 * sentence in the client, generated from the one list (shared/kernel/messages.ts) by `npm run
 * openapi`; `describe(code, lang)` reads them.
 */
import { readFileSync } from "node:fs";
import { expect, it, describe as suite } from "vitest";
import { CLIENT_MESSAGES, describe } from "../../client/index.ts";
import { MESSAGES_FILE, messagesText } from "../../scripts/docs/messages.ts";
import { ERROR_STATUS } from "../../shared/kernel/errors.ts";
import { RESULT_CODES } from "../../shared/kernel/result-codes.ts";

const resultCodes = Object.keys(RESULT_CODES);
const errorCodes = Object.keys(ERROR_STATUS);
const clientCodes = Object.keys(CLIENT_MESSAGES);

suite("the client's sentences for people", () => {
  it("are what npm run openapi generates from shared/kernel/messages.ts (client/messages.ts is not stale)", () => {
    expect(readFileSync(MESSAGES_FILE, "utf8")).toBe(messagesText());
  });

  it("say every result, error and client code in Spanish and in English, none missing", () => {
    const codes = [...resultCodes, ...errorCodes, ...clientCodes];
    expect(codes.length).toBeGreaterThan(40);
    const unknown = describe("a_code_of_a_newer_server", "en");
    const missing = codes.filter((code) => {
      const es = describe(code, "es");
      const en = describe(code, "en");
      return en === unknown || es === en || !/[.!]$/.test(es) || !/[.!]$/.test(en);
    });
    expect(missing).toEqual([]);
  });

  it("speaks Spanish unless told otherwise, and has a sentence for a code it does not know", () => {
    expect(describe("rejected")).toBe(describe("rejected", "es"));
    expect(describe("rejected", "es")).toContain("emita una nota nueva");
    expect(describe("forbidden", "en")).toBe("You are not allowed to do this in this organization.");
    expect(describe("network_error", "es")).toContain("conexión");
    expect(describe("something_new", "es")).toContain("esta versión de la aplicación no conoce");
    // an object's own properties are not codes, and plain JavaScript may pass any language
    for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty"]) {
      expect(describe(name, "es")).toBe(describe("something_new", "es"));
    }
    expect(describe("forbidden", "fr" as "es")).toBe(describe("forbidden", "es"));
  });

  it("covers exactly the error codes docs/openapi.json declares", () => {
    const openapi = JSON.parse(readFileSync(new URL("../../docs/openapi.json", import.meta.url), "utf8"));
    const declared: string[] = openapi.components.schemas.Error.properties.error.properties.code.enum;
    expect([...declared].sort()).toEqual([...errorCodes].sort());
  });
});
