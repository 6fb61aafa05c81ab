/**
 * client/route-errors.ts from docs/openapi.json: for each route, the error codes its answers may
 * carry, as the document declares them per status. `npm run openapi` writes it with the document,
 * and a test fails when the committed file is stale. It reads the document, not the routes, so the
 * client's types say exactly what the published contract says.
 */

export const ROUTE_ERRORS_FILE = new URL("../../client/route-errors.ts", import.meta.url);

type Schema = Record<string, unknown>;

/** The text of client/route-errors.ts for an OpenAPI document. */
export function routeErrorsText(document: Schema): string {
  const paths = (document.paths ?? {}) as Record<string, { post?: Schema }>;
  const entries = Object.entries(paths).map(([path, item]) => {
    const route = path.replace(/^\//, "");
    const codes = routeCodes(document, route, item.post?.responses as Record<string, Schema> | undefined);
    const name = /^[A-Za-z_$][\w$]*$/.test(route) ? route : JSON.stringify(route);
    return `  ${name}:\n${codes.map((code) => `    | ${JSON.stringify(code)}`).join("\n")};`;
  });
  return [
    "/**",
    " * The error codes each route can answer with, as docs/openapi.json declares them per status.",
    " * Generated from it by `npm run openapi` (scripts/docs/route-errors.ts): do not edit.",
    " */",
    "export interface RouteErrorCodes {",
    ...entries,
    "}",
    "",
  ].join("\n");
}

/** Every code of every error status of one route, sorted; a route with an unconstrained error fails. */
function routeCodes(
  document: Schema,
  route: string,
  responses: Record<string, Schema> | undefined,
): string[] {
  const codes = new Set<string>();
  for (const [status, response] of Object.entries(responses ?? {})) {
    if (/^2/.test(status)) continue;
    const content = resolve(document, response).content as Record<string, { schema?: Schema }> | undefined;
    const schema = content?.["application/json"]?.schema;
    const allowed = schema && allowedAt(document, schema, ["error", "code"]);
    if (!allowed) throw new Error(`${route} ${status}: the document does not say which codes it carries`);
    for (const code of allowed) codes.add(code);
  }
  if (codes.size === 0) throw new Error(`${route}: the document declares no error answer`);
  return [...codes].sort();
}

/**
 * The values a schema allows at a property path (enum or const), or null when it does not constrain
 * them: `allOf` narrows (its parts intersect), `anyOf`/`oneOf` widen (their parts unite).
 */
function allowedAt(document: Schema, raw: Schema, path: string[]): Set<string> | null {
  const schema = resolve(document, raw);
  let allowed: Set<string> | null = null;
  const narrow = (values: Set<string> | null) => {
    if (values) allowed = allowed ? new Set([...allowed].filter((value) => values.has(value))) : values;
  };
  const [head, ...rest] = path;
  if (head === undefined) {
    if (Array.isArray(schema.enum)) narrow(new Set(schema.enum.map(String)));
    if (typeof schema.const === "string") narrow(new Set([schema.const]));
  } else {
    const child = (schema.properties as Record<string, Schema> | undefined)?.[head];
    if (child) narrow(allowedAt(document, child, rest));
  }
  for (const part of (schema.allOf as Schema[] | undefined) ?? []) narrow(allowedAt(document, part, path));
  for (const key of ["anyOf", "oneOf"]) {
    const alternatives = ((schema[key] as Schema[] | undefined) ?? []).map((part) =>
      allowedAt(document, part, path),
    );
    if (alternatives.length > 0 && alternatives.every((values) => values !== null)) {
      narrow(new Set(alternatives.flatMap((values) => [...(values ?? [])])));
    }
  }
  return allowed;
}

/** A `$ref` inside the document followed to what it names (chains included). */
function resolve(document: Schema, schema: Schema): Schema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === "string"; hops++) {
    if (hops > 32 || !current.$ref.startsWith("#/")) throw new Error(`cannot follow ${current.$ref}`);
    let target: unknown = document;
    for (const part of current.$ref.slice(2).split("/")) {
      target = (target as Record<string, unknown> | undefined)?.[
        part.replace(/~1/g, "/").replace(/~0/g, "~")
      ];
    }
    if (!target || typeof target !== "object") throw new Error(`${current.$ref} names nothing`);
    current = target as Schema;
  }
  return current;
}
