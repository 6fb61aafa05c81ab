/**
 * How a request body that fails its schema is answered: one detail per field, in the project's
 * words rather than zod's ("required", not "Invalid input: expected string, received undefined"),
 * and an unknown field named as such, with the field it probably meant when one is close (a
 * misspelled `reisue` must not silently change an outcome; Stripe refuses unknown parameters too).
 * Request schemas are strict objects (`orgScoped` in ./route.ts is one, and `.extend` keeps it).
 */
import { z } from "zod";
import type { ErrorDetail } from "../kernel/errors.ts";

/** At most this many details are answered; a body of a thousand unknown keys gets the first ones. */
export const MAX_DETAILS = 20;
/** A field name is echoed at most this long. */
const MAX_FIELD_CHARS = 80;

/** Parses `body` with the project's wordings for zod's own issues (a schema's own message wins). */
export function validate<S extends z.ZodType>(schema: S, body: unknown): z.ZodSafeParseResult<z.output<S>> {
  return schema.safeParse(body, { error: wording });
}

/** The details of a failed parse of `body` by `schema`. */
export function toDetails(error: z.ZodError, body: unknown, schema: z.ZodType): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      const known = keysAt(schema, issue.path);
      for (const key of issue.keys) {
        const near = closest(key, known);
        details.push({
          field: fieldName([...issue.path, key]),
          message: near ? `unknown field; did you mean "${near}"?` : "unknown field",
        });
      }
    } else {
      // a field left out is "required", whatever the schema says about a wrong value
      const missing = issue.path.length > 0 && !hasPath(body, issue.path);
      details.push({ field: fieldName(issue.path), message: missing ? "required" : issue.message });
    }
  }
  return details.slice(0, MAX_DETAILS);
}

/** The project's words for zod's built-in issues (zod calls this only where a schema has none). */
function wording(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "required" : `must be ${KINDS[issue.expected] ?? issue.expected}`;
    case "too_small":
      return bound("at least", issue.origin, issue.minimum, issue.inclusive);
    case "too_big":
      return bound("at most", issue.origin, issue.maximum, issue.inclusive);
    case "invalid_format":
      return issue.format === "guid" || issue.format === "uuid"
        ? "must be a UUID"
        : `must be a valid ${issue.format}`;
    case "invalid_value":
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}`;
    case "invalid_union":
      return "matches none of the accepted forms";
    case "invalid_key":
      return "has a key that is not valid";
    case "invalid_element":
      return "has an element that is not valid";
    case "unrecognized_keys":
      return "unknown field";
    default:
      return "is not valid";
  }
}

const KINDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  record: "an object",
  map: "an object",
  set: "a list",
  tuple: "a list",
  date: "a date",
  bigint: "a whole number",
  nan: "a number",
  null: "null",
};

function bound(side: string, origin: string, limit: number | bigint, inclusive: boolean | undefined): string {
  const n = Number(limit);
  if (origin === "string")
    return n === 1 && side === "at least" ? "must not be empty" : `must be ${side} ${n} characters`;
  if (origin === "array" || origin === "set") return `must list ${side} ${n} item${n === 1 ? "" : "s"}`;
  if (inclusive === false) return `must be ${side === "at least" ? "greater" : "less"} than ${n}`;
  return `must be ${side} ${n}`;
}

/** `a.b.0`; the body itself is `(body)`; a hostile key is echoed cut short. */
function fieldName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(body)";
  const name = path.map(String).join(".");
  return name.length > MAX_FIELD_CHARS ? `${name.slice(0, MAX_FIELD_CHARS)}…` : name;
}

function hasPath(body: unknown, path: readonly PropertyKey[]): boolean {
  let node: unknown = body;
  for (const key of path) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return false;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return true;
}

/** The field names the object schema at `path` of `schema` accepts (none when it cannot tell). */
export function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let nodes: z.ZodType[] = [schema];
  for (let depth = 0; ; depth++) {
    nodes = nodes.flatMap(unwrap);
    if (depth === path.length) break;
    const key = path[depth];
    nodes = nodes.flatMap((node) => {
      if (node instanceof z.ZodObject) {
        const child = (node.shape as Record<string, z.ZodType>)[String(key)];
        return child ? [child] : [];
      }
      if (node instanceof z.ZodArray && typeof key === "number") return [node.element as z.ZodType];
      return [];
    });
  }
  return [...new Set(nodes.flatMap((node) => (node instanceof z.ZodObject ? Object.keys(node.shape) : [])))];
}

/** A schema seen through its wrappers (optional, default, pipe, refinements) and union options. */
function unwrap(node: z.ZodType): z.ZodType[] {
  if (node instanceof z.ZodOptional || node instanceof z.ZodNullable)
    return unwrap(node.unwrap() as z.ZodType);
  if (node instanceof z.ZodDefault || node instanceof z.ZodPrefault)
    return unwrap(node.def.innerType as z.ZodType);
  if (node instanceof z.ZodPipe) return unwrap(node.in as z.ZodType);
  if (node instanceof z.ZodUnion) return (node.options as z.ZodType[]).flatMap(unwrap);
  return [node];
}

/** The known name `key` most probably meant: at most two edits away (one for short names), or none. */
export function closest(key: string, known: readonly string[]): string | undefined {
  const probe = key.toLowerCase().slice(0, 64);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of known) {
    const distance = editDistance(probe, name.toLowerCase());
    const allowed = name.length <= 4 ? 1 : 2;
    if (distance <= allowed && distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance with adjacent transpositions (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = value;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}
