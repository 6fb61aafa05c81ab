/**
 * The parts of a request PostgREST reads besides the query string (v14.17, 064e5fea): the `Prefer`
 * header (src/PostgREST/ApiRequest/Preferences.hs `fromHeaders`, `prefAppliedHeader`), the `Accept`
 * header and the media type chosen from it (MediaType.hs `decodeMediaType`, Plan.hs
 * `negotiateContent`), and the JSON body (ApiRequest/Payload.hs `getPayload`, `payloadAttributes`).
 */
import { errors } from "./errors.ts";

export interface Preferences {
  resolution?: "merge-duplicates" | "ignore-duplicates";
  representation?: "full" | "none" | "headers-only";
  count?: "exact" | "planned" | "estimated";
  missing?: "default" | "null";
  handling?: "strict" | "lenient";
  timezone?: string;
  maxAffected?: number;
  invalid: string[];
}

const ACCEPTED = [
  "resolution=merge-duplicates",
  "resolution=ignore-duplicates",
  "return=representation",
  "return=minimal",
  "return=headers-only",
  "count=exact",
  "count=planned",
  "count=estimated",
  "tx=commit",
  "tx=rollback",
  "missing=default",
  "missing=null",
  "handling=strict",
  "handling=lenient",
];

/**
 * Preferences.hs `fromHeaders`: every `Prefer` header split at commas, the first value of each kind
 * winning. `tx=` is ignored: Supabase's PostgREST keeps `db-tx-end = commit`, which allows no override.
 */
export function parsePreferences(headers: Headers, timezones: Set<string>): Preferences {
  const prefs = (headers.get("prefer") ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  const first = <T extends string>(prefix: string, values: readonly T[]) =>
    prefs
      .map((p) => (p.startsWith(prefix) ? p.slice(prefix.length) : undefined))
      .find((v): v is T => values.includes(v as T));
  const representation = first("return=", ["representation", "minimal", "headers-only"] as const);
  const timezone = prefs.find((p) => p.startsWith("timezone="))?.slice("timezone=".length);
  const timezoneAccepted = timezone !== undefined && timezones.has(timezone);
  const maxAffectedText = prefs.find((p) => p.startsWith("max-affected="))?.slice("max-affected=".length);
  const maxAffected =
    maxAffectedText !== undefined && /^-?\d+$/.test(maxAffectedText) ? Number(maxAffectedText) : undefined;
  const result: Preferences = {
    invalid: prefs.filter(
      (p) =>
        !ACCEPTED.includes(p) &&
        (!p.startsWith("timezone=") || !timezoneAccepted) &&
        !p.startsWith("max-affected="),
    ),
  };
  const resolution = first("resolution=", ["merge-duplicates", "ignore-duplicates"] as const);
  if (resolution) result.resolution = resolution;
  if (representation)
    result.representation =
      representation === "representation" ? "full" : representation === "minimal" ? "none" : "headers-only";
  const count = first("count=", ["exact", "planned", "estimated"] as const);
  if (count) result.count = count;
  const missing = first("missing=", ["default", "null"] as const);
  if (missing) result.missing = missing;
  const handling = first("handling=", ["strict", "lenient"] as const);
  if (handling) result.handling = handling;
  if (timezoneAccepted) result.timezone = timezone;
  if (maxAffected !== undefined) result.maxAffected = maxAffected;
  return result;
}

/** Preferences.hs `prefAppliedHeader`, for the preferences that applied to this request. */
export function preferenceApplied(p: Omit<Preferences, "invalid">): string | undefined {
  const values = [
    p.resolution && `resolution=${p.resolution}`,
    p.missing && `missing=${p.missing}`,
    p.representation &&
      `return=${p.representation === "full" ? "representation" : p.representation === "none" ? "minimal" : "headers-only"}`,
    p.count && `count=${p.count}`,
    p.handling && `handling=${p.handling}`,
    p.timezone && `timezone=${p.timezone}`,
    p.handling === "strict" && p.maxAffected !== undefined ? `max-affected=${p.maxAffected}` : undefined,
  ].filter((v): v is string => typeof v === "string");
  return values.length ? values.join(", ") : undefined;
}

/** What the body is aggregated into: JSON (an array, or one object), CSV, GeoJSON, or nothing (HEAD). */
export type Handler = "json" | "json-stripped" | "single" | "single-stripped" | "csv" | "geojson" | "none";

export interface Negotiated {
  handler: Handler;
  contentType: string;
}

const CONTENT_TYPES: Record<Exclude<Handler, "none">, string> = {
  json: "application/json",
  "json-stripped": "application/vnd.pgrst.array+json;nulls=stripped",
  single: "application/vnd.pgrst.object+json",
  "single-stripped": "application/vnd.pgrst.object+json;nulls=stripped",
  csv: "text/csv",
  geojson: "application/geo+json",
};

/**
 * Plan.hs `negotiateContent` over MediaType.hs `decodeMediaType` of each accepted type, in the
 * order of their quality: the first the table can produce; none is 406 PGRST107. Execution plans
 * (`application/vnd.pgrst.plan`) are not produced: Supabase leaves `db-plan-enabled` off.
 */
export function negotiate(accept: string | null): Negotiated {
  const accepted = (accept ?? "*/*")
    .split(",")
    .map((part, index) => {
      const [type = "", ...parameters] = part.split(";").map((p) => p.trim());
      const q = parameters.find((p) => p.startsWith("q="));
      return { type, parameters, quality: q ? Number(q.slice(2)) : 1, index };
    })
    .filter((a) => a.type !== "")
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  const mimes: string[] = [];
  for (const { type, parameters } of accepted) {
    const lower = type.toLowerCase();
    const stripped = parameters.some((p) => p.replaceAll(" ", "").toLowerCase() === "nulls=stripped");
    const handler: Handler | undefined =
      lower === "application/json" || lower === "*/*"
        ? "json"
        : lower === "application/vnd.pgrst.object+json" || lower === "application/vnd.pgrst.object"
          ? stripped
            ? "single-stripped"
            : "single"
          : lower === "application/vnd.pgrst.array+json" || lower === "application/vnd.pgrst.array"
            ? stripped
              ? "json-stripped"
              : "json"
            : lower === "text/csv"
              ? "csv"
              : lower === "application/geo+json"
                ? "geojson"
                : undefined;
    if (handler) return { handler, contentType: `${CONTENT_TYPES[handler]}; charset=utf-8` };
    mimes.push(type);
  }
  throw errors.mediaType(mimes);
}

export interface Payload {
  /** The body as sent, for `json_to_record(set)`. */
  raw: string;
  /** Its keys (or the `columns` parameter), sorted as PostgREST's `Set` is. */
  columns: string[];
}

/** Payload.hs `getPayload` and `payloadAttributes`, for a JSON body of a table's write. */
export function parsePayload(
  body: string,
  contentType: string | null,
  columns: string[] | undefined,
): Payload {
  const type = (contentType ?? "application/json").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type !== "application/json") {
    if (type === "text/csv" || type === "application/x-www-form-urlencoded") {
      throw errors.notImplemented(`the stand-in takes JSON bodies only, not ${type}`);
    }
    throw errors.invalidBody(`Content-Type not acceptable: ${type}`);
  }
  if (columns) return { raw: body, columns: [...new Set(columns)].sort() };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw errors.invalidBody("Empty or invalid json");
  }
  const keys = (o: unknown) =>
    typeof o === "object" && o !== null && !Array.isArray(o) ? Object.keys(o).sort() : undefined;
  if (Array.isArray(json)) {
    if (json.length === 0) return { raw: "[]", columns: [] };
    const canonical = keys(json[0]);
    const same = (k: string[] | undefined) => k !== undefined && k.join("\0") === canonical?.join("\0");
    if (!canonical || !json.every((o) => same(keys(o))))
      throw errors.invalidBody("All object keys must match");
    return { raw: body, columns: canonical };
  }
  const objectKeys = keys(json);
  // anything else is taken as an empty array
  return objectKeys ? { raw: body, columns: objectKeys } : { raw: "[]", columns: [] };
}
