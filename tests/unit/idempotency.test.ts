/**
 * The pure parts of shared/http/idempotency.ts: the canonical JSON a body is hashed by, and which
 * answers are final (kept and replayed) rather than released for a retry.
 */
import { describe, expect, it } from "vitest";
import { canonicalJson, isFinalAnswer } from "../../shared/http/idempotency.ts";

describe("canonicalJson", () => {
  it("writes JSON with every object's keys sorted, at any depth", () => {
    const value = JSON.parse('{"b":1,"a":{"z":[3,{"y":null,"x":true}],"c":"s"},"":false}');
    expect(canonicalJson(value)).toBe('{"":false,"a":{"c":"s","z":[3,{"x":true,"y":null}]},"b":1}');
  });

  it("gives two bodies that differ only in key order and spacing the same text", () => {
    const one = JSON.parse('{ "org_id": "o", "ids": ["1", "2"], "opts": {"a": 1, "b": 2} }');
    const two = JSON.parse('{"opts":{"b":2,"a":1},"ids":["1","2"],"org_id":"o"}');
    expect(canonicalJson(one)).toBe(canonicalJson(two));
  });

  it("keeps array order, value types and numbers' JSON form apart", () => {
    const texts = [
      '{"a":[1,2]}',
      '{"a":[2,1]}',
      '{"a":"1"}',
      '{"a":1}',
      '{"a":null}',
      '{"a":{}}',
      '{"a":[]}',
    ];
    const canonical = texts.map((text) => canonicalJson(JSON.parse(text)));
    expect(new Set(canonical).size).toBe(texts.length);
    expect(canonicalJson(JSON.parse("[1.0, 1e2, -0.5]"))).toBe("[1,100,-0.5]");
  });

  it("escapes keys and strings as JSON does, and keeps a __proto__ key", () => {
    const value = JSON.parse('{"__proto__":1,"q\\"k":"line\\nbreak \\u0001 é"}');
    const text = canonicalJson(value);
    expect(JSON.parse(text)).toEqual(value);
    expect(text).toBe('{"__proto__":1,"q\\"k":"line\\nbreak \\u0001 é"}');
  });

  it("handles nesting far deeper than the call stack would", () => {
    const depth = 200_000;
    const text = `${"[".repeat(depth)}{"b":[],"a":0}${"]".repeat(depth)}`;
    expect(canonicalJson(JSON.parse(text))).toBe(`${"[".repeat(depth)}{"a":0,"b":[]}${"]".repeat(depth)}`);
  });
});

describe("isFinalAnswer", () => {
  it.each([
    [200, undefined],
    [400, "validation_failed"],
    [403, "forbidden"],
    [404, "not_found"],
    [409, "invalid_state"],
    [422, "business_rule"],
    [422, "credential_rejected"],
  ] as const)("keeps %i %s", (status, code) => {
    expect(isFinalAnswer(status, code)).toBe(true);
  });

  it.each([
    [409, "idempotency_conflict"],
    [429, "rate_limited"],
    [500, "internal_error"],
    [502, "provider_error"],
    [503, "service_unavailable"],
    [503, "database_unavailable"],
    [504, "provider_timeout"],
  ] as const)("releases the key after %i %s", (status, code) => {
    expect(isFinalAnswer(status, code)).toBe(false);
  });

  it.each([
    [299, true],
    [499, true],
    [100, false],
    [199, false],
    [300, false],
    [304, false],
    [399, false],
  ] as const)("keeps only 2xx and 4xx: %i is %s", (status, kept) => {
    expect(isFinalAnswer(status)).toBe(kept);
  });
});
