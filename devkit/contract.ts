/**
 * Checks an answer of the einvoicing function against the committed docs/openapi.json: its status
 * must be one the route declares, its body must match that status's schema, and it must carry
 * `x-request-id`. The test app's `post` runs this on every answer, so a route test fails when the
 * code answers something the contract does not say (or the document is stale), or when one of the
 * API's own messages is in Spanish (the authority's words travel in their own fields).
 */
import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

type Json = Record<string, unknown>;

/** The contract's ten operations (service-spec §1), as paths under `{base_url}/v1/einvoicing`. */
export const CONTRACT_ROUTES = [
  "/credit-notes",
  "/credit-notes/refresh",
  "/credit-notes/reissue",
  "/credit-notes/representation",
  "/deliver",
  "/integrations/save",
  "/integrations/test",
  "/refresh",
  "/representation",
  "/transmit",
];

/**
 * The routes the design adds beyond the contract's ten: a buyer is owed every note as every invoice
 * (DESIGN §4), an org's webhook endpoints (DESIGN §11), debit notes as credit notes and habilitación's
 * test set in one call (DESIGN §14).
 */
export const DESIGN_ROUTES = [
  "/credit-notes/deliver",
  "/debit-notes",
  "/debit-notes/deliver",
  "/debit-notes/refresh",
  "/debit-notes/reissue",
  "/debit-notes/representation",
  "/integrations/test-set",
  "/webhooks/save",
  "/webhooks/test",
];

/** Every route the API answers, sorted: the contract's and the design's. */
export const API_ROUTES = [...CONTRACT_ROUTES, ...DESIGN_ROUTES].sort();

const document = JSON.parse(
  readFileSync(new URL("../docs/openapi.json", import.meta.url), "utf8"),
) as Json & { paths: Record<string, { post: { responses: Record<string, Json> } }> };

// ajv-formats is CommonJS: its default export arrives wrapped under Node's ESM loader.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true }));
const validators = new Map<string, ValidateFunction>();

/** `#/components/...` references replaced by what they point at (the document has no cycles). */
function inline(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(inline);
  if (value === null || typeof value !== "object") return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === "string" && ref.startsWith("#/")) {
    const target = ref
      .slice(2)
      .split("/")
      .reduce<unknown>((node, key) => (node as Json)[key], document);
    return inline(target);
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inline(item)]));
}

function validatorFor(path: string, status: number): ValidateFunction | string {
  const operation = document.paths[path]?.post;
  // An unknown route answers 404 in the one error shape.
  // a route's error statuses are shared components (`#/components/responses/…`)
  const response = operation
    ? (inline(operation.responses[String(status)]) as Json | undefined)
    : status === 404
      ? { content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } }
      : undefined;
  if (!response) {
    const declared = operation ? Object.keys(operation.responses).join(", ") : "404";
    return `POST ${path} answered ${status}, which docs/openapi.json does not declare (declared: ${declared})`;
  }
  const key = `${path} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    const schema = inline(
      (response as { content: Record<string, { schema: Json }> }).content["application/json"]?.schema,
    );
    validate = ajv.compile(schema as Json);
    validators.set(key, validate);
  }
  return validate;
}

/** Throws, naming what is wrong, unless `response` is an answer the contract allows for POST `path`. */
export async function expectAnswerInContract(path: string, response: Response): Promise<void> {
  const problem = (message: string) => new Error(`contract: ${message}`);
  if (!response.headers.get("x-request-id")) throw problem(`POST ${path} answered without x-request-id`);
  const validate = validatorFor(path, response.status);
  if (typeof validate === "string") throw problem(validate);
  const text = await response.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw problem(
      `POST ${path} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`,
    );
  }
  if (!validate(body)) {
    throw problem(
      `POST ${path} answered ${response.status} with a body the schema refuses: ` +
        `${ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`,
    );
  }
  const requestId = (body as { error?: { request_id?: unknown } }).error?.request_id;
  if (requestId !== undefined && requestId !== response.headers.get("x-request-id")) {
    throw problem(
      `POST ${path} answered error.request_id ${requestId} but x-request-id ${response.headers.get("x-request-id")}`,
    );
  }
  if (response.status === 429 && !/^[0-9]+$/.test(response.headers.get("retry-after") ?? "")) {
    throw problem(`POST ${path} answered 429 without Retry-After`);
  }
  const spanish = spanishMessages(body);
  if (spanish.length > 0) {
    throw problem(
      `POST ${path} answered ${response.status} with a message in Spanish: ${spanish.join(" | ")}`,
    );
  }
}

/**
 * Words only a Spanish text has. The API writes its messages in English; the authority's and the
 * providers' own words are passed through in `authority_message`, `authority_rules` and
 * `provider_message`, never in a `message` of the API's.
 */
export const SPANISH_ONLY = [
  /\bfactura\b/i,
  /\bautorizad[ao]s?\b/i,
  /\brechaz(o|ad[ao]s?)\b/i,
  /\bnota cr[eé]dito\b/i,
  /\bdocumento\b/i,
  /\bha sido\b/i,
  /\bno est[aá]\b/i,
  /\bvalidaci[oó]n\b/i,
  /\benviad[ao]\b/i,
];

/** Every `message` of the API's in an answer body (not the authority's rules') that reads as Spanish. */
export function spanishMessages(body: unknown): string[] {
  if (Array.isArray(body)) return body.flatMap(spanishMessages);
  if (body === null || typeof body !== "object") return [];
  return Object.entries(body).flatMap(([key, value]) => {
    if (key === "authority_rules") return [];
    if (key === "message" && typeof value === "string") {
      return SPANISH_ONLY.some((word) => word.test(value)) ? [value] : [];
    }
    return spanishMessages(value);
  });
}
