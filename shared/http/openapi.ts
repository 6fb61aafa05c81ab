/**
 * The contract as an OpenAPI 3.1 document, built from what the routes declare (`operation()`'s
 * schemas, roles and error codes) — never written by hand. `npm run openapi` writes it to
 * docs/openapi.json; a test fails when the committed file is stale, and the route tests check every
 * answer they get against it. Only scripts and tests import this module; the functions do not.
 */
import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "../kernel/errors.ts";
import { ERROR_EXAMPLES } from "./error-examples.ts";
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from "./idempotency.ts";
import { type Operation, type OperationContract, PIPELINE_ERRORS } from "./route.ts";

type Json = Record<string, unknown>;

export interface ContractSource {
  /** The function's name: paths are `{base_url}/v1/<function>/<route>`. */
  functionName: string;
  version: string;
  /** The route groups with their operations loaded (./lazy.ts `loadGroup`). */
  groups: readonly { name: string; prefix: string; operations: Readonly<Record<string, Operation>> }[];
  /** What the service POSTs to its webhook endpoints, by name (OpenAPI 3.1 `webhooks`). */
  webhooks?: Readonly<Record<string, WebhookContract>>;
  /** Each path's method of the typed client (`/credit-notes/reissue` → `creditNotes.reissue`), for its example. */
  clientMethods?: Readonly<Record<string, string>>;
}

/** A message the service sends to a receiver: its body and an example. */
export interface WebhookContract {
  summary: string;
  description: string;
  body: z.ZodType;
  example: unknown;
}

/** What each HTTP status means, for the reference page. */
const STATUS_TEXT: Record<number, string> = {
  400: "The body is not JSON, or fails the schema (details name the field).",
  401: "No, invalid or expired token; wrong issuer, audience or algorithm; missing or wrong apikey.",
  403: "Not a member of org_id, or the role may not call this route.",
  404: "The document or company is not in this organization.",
  409: "Not allowed in the document's current state, or the Idempotency-Key was used with another body or is in flight.",
  413: "The body is over the size limit.",
  415: "The body is not application/json.",
  422: "A business rule refuses the request (the message says which).",
  429: "Too many requests (a limit of this service, or the provider rate limiting): retry after `Retry-After` seconds.",
  500: "Unexpected error; the request id identifies it in the logs.",
  502: "The provider failed and nothing changed.",
  503: "A dependency (database, token keys) is unavailable or did not answer in time; retry after `Retry-After` seconds.",
  504: "The provider did not answer in time and nothing changed.",
};

export function buildOpenApi(source: ContractSource): Json {
  const paths: Json = {};
  const errorResponses: Json = {};
  for (const group of source.groups) {
    for (const [route, handler] of Object.entries(group.operations)) {
      const path = `${group.prefix}${route === "/" ? "" : route}`;
      const method = source.clientMethods?.[path];
      paths[path] = { post: operationObject(path, group.name, handler.contract, errorResponses, method) };
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Electronic invoicing API",
      version: source.version,
      description:
        "Transmits invoices and credit notes to the tax authority through an invoicing provider, keeps " +
        "their stamped PDFs in the private bucket `service-documentos`, e-mails invoices, and tests and " +
        "saves each company's provider credentials. Every operation is a POST with a JSON body carrying " +
        "`org_id`, called with the signed-in user's access token and the project's publishable key. " +
        "Errors have one shape; every answer carries `x-request-id`.",
    },
    servers: [
      {
        url: `{base_url}/v1/${source.functionName}`,
        variables: {
          base_url: {
            default: "http://127.0.0.1:54321/functions",
            description: "The Supabase functions root: https://<project-ref>.supabase.co/functions",
          },
        },
      },
    ],
    security: [{ bearerAuth: [], apikey: [] }],
    tags: source.groups.map((group) => ({ name: group.name })),
    paths,
    ...(source.webhooks ? { webhooks: webhookObjects(source.webhooks) } : {}),
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "The signed-in user's Supabase access token.",
        },
        apikey: {
          type: "apiKey",
          in: "header",
          name: "apikey",
          description: "The project's publishable key.",
        },
      },
      parameters: {
        IdempotencyKey: {
          name: IDEMPOTENCY_KEY_HEADER,
          in: "header",
          required: false,
          description:
            "Optional. The same key with the same body within 24 hours answers the first answer again " +
            "(with `Idempotent-Replayed: true`) without doing the work twice; with another body, 409.",
          schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]+$" },
        },
      },
      headers: {
        RequestId: {
          description: "Identifies the request in the service's logs (also `error.request_id`).",
          required: true,
          schema: { type: "string" },
        },
        RetryAfter: {
          description: "Seconds to wait before trying again.",
          schema: { type: "string", pattern: "^[0-9]+$" },
        },
        IdempotentReplayed: {
          description:
            "`true` when this is the kept answer to an earlier request with the same Idempotency-Key " +
            "(a 200, or a final 4xx other than 429 and 409 `idempotency_conflict`).",
          schema: { type: "string", enum: ["true"] },
        },
      },
      responses: Object.fromEntries(Object.entries(errorResponses).sort(([a], [b]) => a.localeCompare(b))),
      schemas: { Error: ERROR_BODY },
    },
  };
}

function operationObject(
  path: string,
  tag: string,
  contract: OperationContract,
  shared: Json,
  clientMethod: string | undefined,
): Json {
  if (!contract.example) throw new Error(`${path} declares no example request and answer`);
  if (!contract.description) throw new Error(`${path} declares no description`);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...PIPELINE_ERRORS, ...contract.errors])) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Json = {
    200: {
      description: "Done.",
      headers: {
        "x-request-id": { $ref: "#/components/headers/RequestId" },
        [IDEMPOTENT_REPLAYED_HEADER]: { $ref: "#/components/headers/IdempotentReplayed" },
      },
      content: {
        "application/json": {
          schema: schemaOf(contract.output, "output"),
          ...examplesOf(path, "answer", contract.output, contract, (e) => e.response),
        },
      },
    },
  };
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = (byStatus.get(status) ?? []).sort();
    // one component per status and set of codes, shared by every route that answers exactly those
    const name = `Error${status}-${codes.join("-")}`;
    shared[name] ??= errorResponse(status, codes);
    responses[status] = { $ref: `#/components/responses/${name}` };
  }
  return {
    operationId: operationIdOf(path),
    summary: contract.summary,
    description: [
      contract.description,
      `Roles: ${contract.roles.join(", ")}.`,
      ...(clientMethod ? [clientExample(clientMethod, contract.example.request)] : []),
    ].join("\n\n"),
    tags: [tag],
    parameters: [{ $ref: "#/components/parameters/IdempotencyKey" }],
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: schemaOf(contract.input, "input"),
          ...examplesOf(path, "request", contract.input, contract, (e) => e.request),
        },
      },
    },
    responses,
  };
}

/** The call of the typed client that sends `request`, as a web app writes it. */
function clientExample(method: string, request: unknown): string {
  // JSON with the keys a JavaScript object literal needs no quotes for
  const literal = JSON.stringify(request, null, 2).replace(/^(\s*)"([A-Za-z_$][\w$]*)":/gm, "$1$2:");
  return [
    "With the typed client (`@einvoicing/client`; `einvoicing = createEinvoicingClient(supabase)`):",
    "",
    "```ts",
    `const answer = await einvoicing.${method}(${literal});`,
    "```",
  ].join("\n");
}

/** Each message a receiver gets, as a POST it must answer 2xx (anything else is retried). */
function webhookObjects(webhooks: Readonly<Record<string, WebhookContract>>): Json {
  return Object.fromEntries(
    Object.entries(webhooks).map(([name, webhook]) => [
      name,
      {
        post: {
          summary: webhook.summary,
          description: webhook.description,
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: schemaOf(webhook.body, "output"),
                example: checkedExample(`webhook ${name}`, "message", webhook.body, webhook.example),
              },
            },
          },
          responses: {
            "2XX": { description: "Taken. Any other status (or none within the timeout) is retried." },
            "410": { description: "Gone: the endpoint is disabled at once." },
          },
        },
      },
    ]),
  );
}

/** An error status carrying `codes`: the shared Error body with `code` narrowed, and one example per code. */
function errorResponse(status: number, codes: readonly ErrorCode[]): Json {
  return {
    description: `${STATUS_TEXT[status] ?? ""} Codes: ${codes.map((code) => `\`${code}\``).join(", ")}.`,
    headers: {
      "x-request-id": { $ref: "#/components/headers/RequestId" },
      ...(status === 429 || status === 503
        ? { "Retry-After": { $ref: "#/components/headers/RetryAfter" } }
        : {}),
    },
    content: {
      "application/json": {
        schema: {
          allOf: [{ $ref: "#/components/schemas/Error" }],
          type: "object",
          properties: { error: { type: "object", properties: { code: { type: "string", enum: codes } } } },
        },
        examples: Object.fromEntries(
          codes.map((code) => {
            const { summary, message, details } = ERROR_EXAMPLES[code];
            const error = { code, message, ...(details ? { details } : {}), request_id: EXAMPLE_REQUEST_ID };
            return [code, { summary, value: { error } }];
          }),
        ),
      },
    },
  };
}

const EXAMPLE_REQUEST_ID = "3f0c2a9e-5b7d-4e41-9a63-0d2b8c6f1e47";

/**
 * A route's example as OpenAPI shows it: `example`, or — when the route declares more — `examples`,
 * the first named `default` (OpenAPI allows one of the two, not both).
 */
function examplesOf(
  path: string,
  what: string,
  schema: z.ZodType,
  contract: OperationContract,
  pick: (pair: { request: unknown; response: unknown }) => unknown,
): Json {
  const example = contract.example as { request: unknown; response: unknown; summary?: string };
  const more = Object.entries(contract.moreExamples ?? {});
  if (more.length === 0) return { example: checkedExample(path, what, schema, pick(example)) };
  return {
    examples: {
      default: {
        summary: example.summary ?? "Example",
        value: checkedExample(path, what, schema, pick(example)),
      },
      ...Object.fromEntries(
        more.map(([name, pair]) => [
          name,
          { summary: pair.summary, value: checkedExample(path, `${name} ${what}`, schema, pick(pair)) },
        ]),
      ),
    },
  };
}

/** A route's example, refused at build time unless its schema accepts it (a stale example fails the build). */
function checkedExample(path: string, what: string, schema: z.ZodType, example: unknown): unknown {
  const parsed = schema.safeParse(example);
  if (!parsed.success) {
    throw new Error(
      `the ${what} example of ${path} does not pass its schema: ${z.prettifyError(parsed.error)}`,
    );
  }
  return example;
}

/** `{ error: { code, message, provider_message?, details?, request_id } }`: each status narrows `code` to its own. */
const ERROR_BODY: Json = {
  type: "object",
  required: ["error"],
  additionalProperties: false,
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "request_id"],
      additionalProperties: false,
      properties: {
        code: {
          type: "string",
          enum: Object.keys(ERROR_STATUS),
          description: "What went wrong, as a stable word a program can branch on.",
        },
        message: { type: "string", description: "What went wrong, in English, for a person." },
        provider_message: {
          type: "string",
          description:
            "A provider's (or DIAN's) own words about its failure, as it wrote them; present when it gave any. Never part of `message`.",
        },
        details: {
          description: "Which fields are wrong, and how.",
          type: "array",
          items: {
            type: "object",
            required: ["field", "message"],
            additionalProperties: false,
            properties: {
              field: {
                type: "string",
                description: "The field, as a path (`lines.0.quantity`); `(body)` for the whole body.",
              },
              message: {
                type: "string",
                description: "What is wrong with it: `required`, a bound it breaks, `unknown field`.",
              },
            },
          },
        },
        request_id: {
          type: "string",
          description:
            "The request's id, also in the `x-request-id` header: quote it to find the request in the logs.",
        },
      },
    },
  },
};

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), as the request is sent or the answer read. */
function schemaOf(schema: z.ZodType, io: "input" | "output"): Json {
  // Refinements (distinct ids, settings' size) are not expressible; the server still applies them.
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Json;
  return json;
}

/** `/credit-notes/reissue` → `creditNotesReissue`. */
function operationIdOf(path: string): string {
  return path
    .split(/[/-]/)
    .filter(Boolean)
    .map((word, i) => (i === 0 ? word : word[0]?.toUpperCase() + word.slice(1)))
    .join("");
}
