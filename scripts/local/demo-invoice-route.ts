/**
 * `POST /local/v1/demo-invoice`, the local server's own route behind `npm run demo:invoice`
 * (./demo-invoice.ts): a `pendiente` invoice with two lines, in the organization the body names,
 * created as the calling user the way a web app creates one with supabase-js
 * (docs/creating-invoices.md) — the INSERTs PostgREST runs for `.from(table).insert(rows)`, of the
 * draft columns only, as the role `authenticated` with the user's claims, so the same grants and
 * row level security decide: an operador or an admin may, a lector or a stranger may not.
 *
 * It exists because the local server has no PostgREST, and its embedded database (PGlite) cannot be
 * opened by a second process. Local only: nothing of it is deployed.
 */
import type { TablesInsert } from "../../client/database.ts";
import type { VerifiedClaims } from "../../shared/auth/jwt.ts";
import { nitCheckDigit } from "../../shared/co/check-digit.ts";
import type { SqlClient, SqlSession } from "../../shared/db/sql-client.ts";
import { readCapped } from "../../shared/kernel/bytes.ts";
import { localError, methodNotAllowed } from "./answers.ts";

export const DEMO_INVOICE_PATH = "/local/v1/demo-invoice";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_BODY_BYTES = 1024;
const BUYER_NIT = "860001234";

export interface DemoInvoice {
  invoice_id: string;
  number: string;
  org_id: string;
  company_id: string;
  lines: number;
  total: number;
}

type DraftLine = Omit<TablesInsert<"invoice_lines">, "invoice_id" | "org_id">;

/** The two lines, as a web app sends them: quantities, prices and taxes (the database computes the amounts). */
function demoLines(): DraftLine[] {
  return [
    {
      position: 1,
      code: "SRV-01",
      description: "Servicio de consultoría",
      quantity: 3,
      unit_price: 40_000,
      taxes: [{ code: "01", percent: 19 }], // IVA 19 %
    },
    {
      position: 2,
      code: "LIB-07",
      description: "Libro técnico (exento)",
      quantity: 1,
      unit_price: 25_000,
      taxes: [{ code: "01", percent: 0 }], // IVA at 0 %: "exento"
    },
  ];
}

/**
 * `insert into public.<table> (<columns>) select <columns> from json_populate_recordset(…)`: what
 * PostgREST runs for an insert (the columns are the keys of the rows: here ours, typed by the table).
 */
function insertRows<T extends "invoices" | "invoice_lines">(
  s: SqlSession,
  table: T,
  rows: TablesInsert<T>[],
  returning: string,
): Promise<Record<string, unknown>[]> {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))].map((c) => `"${c}"`).join(", ");
  return s.query(
    `insert into public.${table} (${columns}) select ${columns}
       from json_populate_recordset(null::public.${table}, $1::json) returning ${returning}`,
    [rows as unknown[]],
  );
}

async function createDemoInvoice(s: SqlSession, orgId: string): Promise<DemoInvoice | null> {
  // the first company of the organization the user sees, and its next consecutive in its range
  const [company] = await s.query<{ id: string; prefix: string; next: string }>(
    `select c.id, c.invoice_prefix as prefix,
            greatest(coalesce(c.resolution_from, 1), coalesce((
              select max(substr(i.number, length(c.invoice_prefix) + 1)::bigint) + 1
                from public.invoices i
               where i.company_id = c.id and i.number ~ ('^' || c.invoice_prefix || '[0-9]{1,15}$')), 0))::text as next
       from public.companies c where c.org_id = $1 order by c.created_at, c.id limit 1`,
    [orgId],
  );
  if (!company) return null;
  const lines = demoLines();
  const draft: TablesInsert<"invoices"> = {
    org_id: orgId,
    company_id: company.id,
    number: `${company.prefix}${company.next}`,
    buyer_id_type: "31",
    buyer_id_number: BUYER_NIT,
    buyer_check_digit: nitCheckDigit(BUYER_NIT),
    buyer_name: "Cliente Demo Local S.A.S.",
    buyer_email: "compras@cliente.test",
    buyer_address: "Calle 80 # 20-30",
    buyer_city_code: "11001",
    notes: "Created by npm run demo:invoice",
  };
  const [invoice] = await insertRows(s, "invoices", [draft], "id, number");
  const { id, number } = invoice as { id: string; number: string };
  await insertRows(
    s,
    "invoice_lines",
    lines.map((line) => ({ invoice_id: id, org_id: orgId, ...line })),
    "id",
  );
  // the total the database computed from the lines (what `.select("total")` reads back)
  const [computed] = await s.query<{ total: string }>("select total from public.invoices where id = $1", [
    id,
  ]);
  return {
    invoice_id: id,
    number,
    org_id: orgId,
    company_id: company.id,
    lines: lines.length,
    total: Number(computed?.total ?? 0),
  };
}

export function createDemoInvoiceHandler(options: {
  client: SqlClient;
  verifyToken(token: string): Promise<VerifiedClaims>;
}): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method !== "POST") return methodNotAllowed(request.method, "POST");
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
    let claims: VerifiedClaims;
    try {
      if (!token) throw new Error("no token");
      claims = await options.verifyToken(token);
    } catch {
      return localError(401, "unauthenticated", "A demo user's access_token from local.json is required.");
    }
    const { bytes, truncated } = await readCapped(request.body, MAX_BODY_BYTES);
    if (truncated) {
      return localError(413, "payload_too_large", `The body is limited to ${MAX_BODY_BYTES} bytes.`);
    }
    const text = new TextDecoder().decode(bytes);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return localError(400, "invalid_json", 'The body must be JSON: {"org_id": "<uuid>"}.');
    }
    const orgId = (body as { org_id?: unknown } | null)?.org_id;
    const keys = body && typeof body === "object" && !Array.isArray(body) ? Object.keys(body) : [];
    if (typeof orgId !== "string" || !UUID.test(orgId) || keys.length !== 1) {
      return localError(400, "validation_failed", 'The body must be {"org_id": "<uuid>"} and nothing else.');
    }
    // two at once may pick the same consecutive: the second insert fails (23505) and tries the next
    for (let attempt = 1; ; attempt++) {
      try {
        const created = await options.client.transaction(async (s) => {
          await s.query(
            "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
            [JSON.stringify({ ...claims, role: "authenticated" })],
          );
          return createDemoInvoice(s, orgId);
        });
        if (!created) {
          return localError(404, "not_found", `You see no company in organization ${orgId}.`);
        }
        return Response.json(created, { status: 201, headers: { "x-request-id": crypto.randomUUID() } });
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (code === "23505" && attempt < 5) continue;
        if (code === "42501") {
          return localError(
            403,
            "forbidden",
            "Row level security refused the insert: only an admin or operador of the organization creates invoices.",
          );
        }
        throw error;
      }
    }
  };
}
