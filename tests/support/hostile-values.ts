/**
 * Values that have broken parsers, databases and renderers, for the schema fuzzer
 * (./fuzz-bodies.ts): odd Unicode (lone surrogates, NUL, RTL marks, emoji, combining marks),
 * injection-shaped text, boundary lengths, extreme numbers, deep nesting, values of every JSON type.
 */
import fc from "fast-check";

/** Text that has broken parsers, databases and renderers. */
const ODD_TEXT = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff",
  "x\ud83d",
  "\ud83dx",
  "\u202eevil\u202c",
  "\u200f\u200e\u2066\u2069",
  "\ufeff",
  "\u200b\u200c\u200d",
  "e\u0301\u0302\u0303\u0304\u0305\u0306\u0307",
  "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a\u032f\u031e\u0320\u034d",
  "🧾💸👩‍👩‍👧‍👦🏳️‍🌈",
  "\u{10ffff}",
  "\u2028\u2029",
  "İıßǅﬀ",
  "١٢٣",
  "'; drop table invoices; --",
  '"}]}',
  "\\u0000",
  "%00%ff",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "\u0024{jndi:ldap://x}",
  "NaN",
  "null",
  "0x10",
  "1e999",
  "-0",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "6F9619FF-8B86-D011-B42D-00C04FC964FF",
  "{6F9619FF-8B86-D011-B42D-00C04FC964FF}",
];

/**
 * Any code points, lone surrogates included. (Not `fc.string({ unit: "binary" })`: building it maps
 * every code point, over a second of CPU each time.)
 */
export const anyCodePoints = (maxLength: number) =>
  fc
    .array(fc.integer({ min: 0, max: 0x10ffff }), { maxLength })
    .map((points) => String.fromCodePoint(...points));

export const oddText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...ODD_TEXT),
  anyCodePoints(40),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc
    .tuple(fc.constantFrom(...ODD_TEXT), fc.constantFrom(...ODD_TEXT), fc.string({ maxLength: 8 }))
    .map((parts) => parts.join("")),
);

const NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 63),
  1e308,
  -1e308,
  5e-324,
  Number.MAX_VALUE,
];

/** Nested arrays or objects `depth` levels deep, around `leaf`. */
export const nested = (depth: number, asObject: boolean, leaf: unknown): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = asObject ? { a: value } : [value];
  return value;
};
export const deep: fc.Arbitrary<unknown> = fc
  .tuple(fc.integer({ min: 8, max: 64 }), fc.boolean(), fc.constantFrom<unknown>(1, "x", null, {}))
  .map(([depth, asObject, leaf]) => nested(depth, asObject, leaf));

/** A value of any JSON type, hostile where it can be. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: oddText },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(...NUMBERS, true, false, null, [], {}) },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: deep },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(0, 1, 7, 8, 199, 200, 201, 254, 255, 256, 499, 500, 501, 512, 513, 2048, 2049, 9000)
      .chain((n) => fc.constantFrom("x", "é", "🧾", " ").map((c) => c.repeat(n))),
  },
  { weight: 1, arbitrary: fc.array(fc.uuid(), { minLength: 0, maxLength: 60 }) },
);
