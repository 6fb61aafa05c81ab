/**
 * Request bodies for property-based fuzzing, generated from a route's zod request schema (through
 * its JSON Schema, `z.toJSONSchema`, input side): valid bodies (fields within their bounds, ids
 * that exist or not), the same bodies broken one to three ways (a required field missing, a field
 * holding something hostile, extra keys), hostile JSON of any shape, text that is not JSON, and raw
 * bytes. "Hostile": boundary lengths, odd Unicode (lone surrogates, NUL, RTL marks, emoji, combining
 * marks), wrong types, huge and tiny numbers, deep nesting.
 */
import fc from "fast-check";
import { z } from "zod";
import { anyCodePoints, deep, hostileValue, nested, oddText } from "./hostile-values.ts";

/** The part of JSON Schema that z.toJSONSchema emits for our request schemas. */
interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  anyOf?: JsonSchema[];
}

/** How a body is sent: a JSON value (serialised), text as it is, or bytes as they are. */
export type FuzzBody =
  | { kind: "json"; value: unknown }
  | { kind: "text"; text: string }
  | { kind: "bytes"; bytes: Uint8Array<ArrayBuffer> };

export interface FuzzContext {
  /** Ids that exist: the caller's organization first, then documents and companies of it and others. */
  knownIds: readonly string[];
  /** The deployment's body limit, to aim at both sides of it. */
  maxBodyBytes: number;
}

/** A string at, inside or around its bounds (from the schema's minLength and maxLength). */
function boundedString(schema: JsonSchema, unit: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Math.max(min, 64);
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit, minLength: min, maxLength: Math.min(max, min + 40) }) },
    { weight: 1, arbitrary: fc.string({ unit, minLength: max, maxLength: max }) },
    { weight: 1, arbitrary: fc.string({ unit, minLength: max + 1, maxLength: max + 1 }) },
    { weight: 1, arbitrary: fc.constant("".padEnd(Math.max(min - 1, 0), "a")) },
  );
}

/** A value the schema accepts, or one just past a bound (they are generated together on purpose). */
export function validValue(schema: JsonSchema, context: FuzzContext, key = ""): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  // one of its scalar forms (a debit note's tax rate: a JSON number or decimal text)
  if (schema.anyOf?.every((form) => form.type === "number" || form.type === "string"))
    return fc.oneof(...schema.anyOf.map((form) => validValue(form, context, key)));
  switch (schema.type) {
    case "boolean":
      return fc.boolean();
    case "number": {
      // a small number within its bounds (a rate, an amount), or one just past them
      const min = schema.minimum ?? -1_000_000;
      const max = schema.maximum ?? 1_000_000;
      return fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min: Math.max(min, 0), max: Math.min(max, 100) }) },
        { weight: 1, arbitrary: fc.double({ min, max, noNaN: true }) },
        { weight: 1, arbitrary: fc.constantFrom(min - 1, max + 1) },
      );
    }
    case "integer": {
      // a whole number within its bounds (a count), or one just past them, or not whole
      const min = schema.minimum ?? -1_000_000;
      const max = schema.maximum ?? 1_000_000;
      return fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min, max: Math.min(max, min + 100) }) },
        { weight: 1, arbitrary: fc.constantFrom(min - 1, max + 1, min + 0.5) },
      );
    }
    case "string":
      return validString(schema, context, key);
    case "array": {
      // Objects in a list (a debit note's lines) are mostly well formed, each field within its
      // bounds: with a dozen fields each just past a bound a third of the time, hardly any body
      // would reach the operation. One in four is as wild as a top-level field.
      const wild = validValue(schema.items ?? {}, context, key);
      const items =
        schema.items?.type === "object" && schema.items.properties
          ? fc.oneof(
              { weight: 3, arbitrary: tameObject(schema.items, context) },
              { weight: 1, arbitrary: wild },
            )
          : wild;
      const min = schema.minItems ?? 0;
      const max = schema.maxItems ?? 20;
      // A list of n: of objects (a debit note's thousand lines, each with its own lists), a few
      // generated and repeated, as generating a thousand nested objects takes a second per body.
      const listOf = (n: number) =>
        schema.items?.type === "object"
          ? fc
              .array(items, { minLength: 1, maxLength: 4 })
              .map((some) => Array.from({ length: n }, (_, i) => some[i % some.length]))
          : fc.array(items, { minLength: n, maxLength: n });
      return fc.oneof(
        { weight: 4, arbitrary: fc.array(items, { minLength: min, maxLength: Math.min(max, min + 4) }) },
        // at the bound and one past it (at most a thousand uuids: 40 kB)
        { weight: 1, arbitrary: listOf(max) },
        { weight: 1, arbitrary: listOf(max + 1) },
        // duplicates
        { weight: 1, arbitrary: items.map((item) => [item, item]) },
      );
    }
    case "object":
      if (schema.properties) return validObject(schema, context);
      return fc.oneof(
        fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 8 }),
        fc.dictionary(fc.oneof(oddText, fc.constant("k".repeat(201))), fc.oneof(hostileValue, deep), {
          maxKeys: 4,
        }),
        // past 8 KiB as JSON, and past 8 levels
        fc.constant({ big: "s".repeat(9000) }),
        fc.constant(nested(9, true, 1) as Record<string, unknown>),
      );
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/**
 * An object the schema accepts: its required fields (and now and then its optional ones too), each
 * within its bounds — a string of letters, a decimal or a code where a pattern asks for one, a
 * short list.
 */
function tameObject(schema: JsonSchema, context: FuzzContext): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  const model = (keys: string[]) =>
    fc.record(Object.fromEntries(keys.map((key) => [key, tameValue(properties[key] ?? {}, context, key)])));
  return fc.oneof(
    { weight: 2, arbitrary: model(required) },
    { weight: 1, arbitrary: model(Object.keys(properties)) },
  );
}

function tameValue(schema: JsonSchema, context: FuzzContext, key: string): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf?.[0]) return tameValue(schema.anyOf[0], context, key);
  switch (schema.type) {
    case "boolean":
      return fc.boolean();
    case "number":
      return fc.integer({ min: Math.max(schema.minimum ?? 0, 0), max: Math.min(schema.maximum ?? 100, 100) });
    case "array": {
      const min = schema.minItems ?? 0;
      const items = tameValue(schema.items ?? {}, context, key);
      return fc.array(items, { minLength: min, maxLength: Math.min(schema.maxItems ?? 3, min + 2) });
    }
    case "object":
      return schema.properties ? tameObject(schema, context) : fc.constant({});
    case "string":
      if (schema.format || schema.pattern) return validString(schema, context, key);
      return fc.string({
        unit: fc.constantFrom(..."abcXYZ019".split("")),
        minLength: Math.max(schema.minLength ?? 1, 1),
        maxLength: Math.min(schema.maxLength ?? 20, 20),
      });
    default:
      return fc.constant(null);
  }
}

function validString(schema: JsonSchema, context: FuzzContext, key: string): fc.Arbitrary<string> {
  if (schema.format === "uuid") {
    const [orgId, ...others] = context.knownIds;
    const known = key === "org_id" ? fc.constant(orgId ?? "") : fc.constantFrom(...others);
    // A document that exists takes the whole operation (a PDF, a provider call): rarer, as it costs.
    if (key === "org_id") {
      return fc.oneof(
        { weight: 6, arbitrary: known },
        { weight: 1, arbitrary: known.map((id) => id.toUpperCase()) },
        { weight: 1, arbitrary: fc.uuid() },
      );
    }
    return fc.oneof(
      { weight: 2, arbitrary: known },
      { weight: 1, arbitrary: known.map((id) => id.toUpperCase()) },
      { weight: 6, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: fc.constantFrom(...context.knownIds) },
    );
  }
  if (schema.format === "email") {
    return fc.oneof(
      { weight: 3, arbitrary: fc.emailAddress() },
      { weight: 1, arbitrary: fc.constant(`${"a".repeat(64)}@${"b".repeat(185)}.co`) },
      { weight: 1, arbitrary: oddText.map((text) => `${text}@example.com`) },
    );
  }
  if (schema.pattern === "^[\\x21-\\x7e]+$") {
    return boundedString(schema, fc.constantFrom(..."!~azAZ09_-sk".split("")));
  }
  const charClass = /^\^\[A-Z0-9\]\{1,([0-9]+)\}\$$/.exec(schema.pattern ?? "");
  if (charClass) {
    // a code of capitals and digits (a UN/ECE unit, `94`, `NIU`), or one just off it
    const unit = fc.constantFrom(..."ANIUKG0149".split(""));
    return fc.oneof(
      { weight: 4, arbitrary: fc.string({ unit, minLength: 1, maxLength: Number(charClass[1]) }) },
      { weight: 1, arbitrary: fc.constantFrom("", "niu", "N U", "X".repeat(Number(charClass[1]) + 1)) },
    );
  }
  if (schema.pattern === "^[0-9]{2}$") {
    // DIAN's two-digit tax code: one the database knows, one it does not, or just off the pattern
    return fc.constantFrom("01", "04", "03", "22", "34", "99", "1", "001");
  }
  if (schema.pattern?.startsWith("^(?=.*[1-9])") || schema.pattern?.startsWith("^(0|[1-9][0-9]{0,11})")) {
    // a decimal as text (a credited quantity or amount, a debit note's quantity and unit price):
    // mostly well formed, or just off it
    return fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .tuple(fc.integer({ min: 0, max: 120_000 }), fc.integer({ min: 0, max: 99 }))
          .map(([whole, cents]) => `${whole}.${String(cents).padStart(2, "0")}`),
      },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 12 }).map(String) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          "0",
          "0.00",
          "-1",
          "1e3",
          "01",
          "1.",
          ".5",
          "1.1234567",
          "9".repeat(17),
          " 1",
        ),
      },
    );
  }
  if (schema.maxLength === 2048) {
    // a provider url: https on a public-looking name, or anything the policy must refuse
    return fc.oneof(
      { weight: 2, arbitrary: fc.webUrl({ validSchemes: ["https"] }) },
      { weight: 1, arbitrary: fc.webUrl({ validSchemes: ["http", "ftp", "file"] }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          "https://127.0.0.1/",
          "https://[::1]/x",
          "https://169.254.169.254/latest/meta-data",
          "https://localhost:1/",
          "https://0x7f.1/",
          "javascript:alert(1)",
          "https://sandbox.provider.test/adapter-tax",
          `https://a.test/${"p".repeat(2040)}`,
          `https://a.test/${"é".repeat(1100)}`,
        ),
      },
      { weight: 1, arbitrary: boundedString(schema, fc.constantFrom("a", "/", ":", "%", "é", "\u202e")) },
    );
  }
  return fc.oneof(
    { weight: 3, arbitrary: boundedString(schema, fc.string({ minLength: 1, maxLength: 1 })) },
    { weight: 2, arbitrary: oddText },
    { weight: 1, arbitrary: boundedString(schema, fc.constantFrom("é", "🧾", "\u0301", " ")) },
  );
}

function validObject(schema: JsonSchema, context: FuzzContext): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const model = Object.fromEntries(
    Object.entries(properties).map(([key, property]) => [key, validValue(property, context, key)]),
  );
  const record = fc.record(model, { requiredKeys: schema.required ?? [] }) as fc.Arbitrary<
    Record<string, unknown>
  >;
  return properties.certificate && properties.software_pin ? inOneMode(record) : record;
}

/**
 * An integrations body in one of its two modes, as a caller sends it: a provider key's (DIAN mode's
 * fields left out), or mostly DIAN mode's (its settings, a certificate file of random bytes in
 * base64, no api_key). Each field alone is fuzzed already; mixing the modes at random would make
 * nearly every body a 400 that never reaches the operation.
 */
function inOneMode(record: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(record, fc.nat(3), fc.uint8Array({ minLength: 3, maxLength: 96 }), fc.boolean())
    .map(([body, mode, bytes, keepPin]) => {
      if (mode > 0) {
        delete body.certificate;
        delete body.software_pin;
        return body;
      }
      delete body.api_key;
      body.settings = { provider: "dian", software_id: "56f2ae4e-9812-4fad-9255-08fcfcd5ccb0" };
      body.certificate = { p12_base64: btoa(String.fromCharCode(...bytes)), password: "fuzz" };
      if (!keepPin) delete body.software_pin;
      return body;
    });
}

/** One way to break an object: drop a key, poison a field, add keys. */
const mutation = (keys: readonly string[]): fc.Arbitrary<(body: Record<string, unknown>) => void> =>
  fc.oneof(
    fc.constantFrom(...keys).map((key) => (body: Record<string, unknown>) => {
      delete body[key];
    }),
    fc
      .tuple(fc.constantFrom(...keys), hostileValue)
      .map(([key, value]) => (body: Record<string, unknown>) => {
        body[key] = value;
      }),
    fc
      .tuple(fc.oneof(oddText, fc.constantFrom("__proto__", "constructor", "toString")), hostileValue)
      .map(([key, value]) => (body: Record<string, unknown>) => {
        Object.defineProperty(body, key, { value, enumerable: true, configurable: true, writable: true });
      }),
  );

/** JSON text that is not quite JSON, or JSON with literals JavaScript cannot hold exactly. */
function brokenText(
  valid: fc.Arbitrary<Record<string, unknown>>,
  context: FuzzContext,
): fc.Arbitrary<string> {
  const json = valid.map((value) => JSON.stringify(value));
  return fc.oneof(
    fc.tuple(json, fc.nat()).map(([text, n]) => text.slice(0, n % Math.max(text.length, 1))),
    json.map((text) => `${text} trailing`),
    json.map((text) => `\ufeff${text}`),
    json.map((text) => text.replace(/:"[^"]*"/, ":1e999")),
    json.map((text) => text.replace(/:"[^"]*"/, ":123456789012345678901234567890123456789")),
    json.map((text) => text.replace(/:"[^"]*"/, ":-0.0000000000000000000000000001e-400")),
    json.map((text) => text.replace(/"([a-z_]+)":/, '"$1":"dup","$1":')),
    json.map((text) => text.replaceAll('"', "'")),
    json.map((text) => text.replace("{", "{/* c */")),
    json.map((text) => text.replace(/"[^"]*"}$/, '"\\ud800"}')),
    fc.constantFrom("", " ", "null", "[]", "0", '"x"', "{", "}", "{}", "[{}]", "NaN", '{"a":}', "\u0000"),
    anyCodePoints(64),
    // one byte either side of the body limit
    fc
      .constantFrom(context.maxBodyBytes - 16, context.maxBodyBytes + 1)
      .map((size) => `{"org_id":"${context.knownIds[0]}","pad":"${"x".repeat(size)}"}`),
  );
}

const invalidUtf8: fc.Arbitrary<Uint8Array<ArrayBuffer>> = fc
  .tuple(
    fc.constantFrom([0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]),
    fc.boolean(),
  )
  .map(([bad, inKey]) => {
    const encode = (text: string) => [...new TextEncoder().encode(text)];
    return new Uint8Array(
      inKey
        ? [...encode('{"'), ...bad, ...encode('":1}')]
        : [...encode('{"reason":"'), ...bad, ...encode('","org_id":"x"}')],
    );
  });

/** Bodies for a route whose request schema is `schema`. */
export function fuzzBodies(schema: z.ZodType, context: FuzzContext): fc.Arbitrary<FuzzBody> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const valid = validObject(json, context);
  const keys = Object.keys(json.properties ?? {});
  const broken = fc
    .tuple(valid, fc.array(mutation(keys), { minLength: 1, maxLength: 3 }))
    .map(([body, changes]) => {
      for (const change of changes) change(body);
      return body;
    });
  return fc.oneof(
    { weight: 30, arbitrary: valid.map((value): FuzzBody => ({ kind: "json", value })) },
    { weight: 40, arbitrary: broken.map((value): FuzzBody => ({ kind: "json", value })) },
    { weight: 8, arbitrary: hostileValue.map((value): FuzzBody => ({ kind: "json", value })) },
    { weight: 12, arbitrary: brokenText(valid, context).map((text): FuzzBody => ({ kind: "text", text })) },
    {
      weight: 5,
      arbitrary: fc
        .oneof(fc.uint8Array({ maxLength: 128 }), invalidUtf8)
        .map((bytes): FuzzBody => ({ kind: "bytes", bytes })),
    },
    {
      weight: 5,
      arbitrary: deep.map(
        (value): FuzzBody => ({ kind: "json", value: { org_id: context.knownIds[0], value } }),
      ),
    },
  );
}

/** The body as it goes on the wire. */
export function wireBody(body: FuzzBody): string | Uint8Array<ArrayBuffer> {
  if (body.kind === "json") return JSON.stringify(body.value) ?? "null";
  return body.kind === "text" ? body.text : body.bytes;
}
