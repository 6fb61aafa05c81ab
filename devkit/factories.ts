/**
 * Test data with fresh ids, inserted as the superuser (RLS and column grants do not apply), so that
 * no test depends on another's rows.
 */
import { randomInt, randomUUID } from "node:crypto";
import { nitCheckDigit as checkDigitOf } from "../shared/co/check-digit.ts";
import type { TestDatabase } from "./database.ts";

/** DIAN's check digit of a NIT the factories draw (always 9 digits, so never null). */
const nitCheckDigit = (nit: string): string => checkDigitOf(nit) ?? "";

export type MemberRole = "admin" | "operador" | "lector";
export type InvoiceStatus = "pendiente" | "en_proceso" | "transmitida" | "error";

/** The verified JWT claims PostgREST would put in `request.jwt.claims` for a signed-in user. */
export interface Claims extends Record<string, unknown> {
  sub: string;
  role: "authenticated";
  aud: "authenticated";
  email: string;
}

export interface Org {
  id: string;
  name: string;
}

export interface User {
  id: string;
  email: string;
  claims: Claims;
}

export interface Company {
  id: string;
  orgId: string;
  nit: string;
  prefix: string;
}

export interface Invoice {
  id: string;
  orgId: string;
  companyId: string;
  number: string;
  status: InvoiceStatus;
  lineIds: string[];
}

export interface LineInput {
  description: string;
  quantity: number;
  unitPrice: number;
  /** IVA percentage; 0 with the default tax code means the line is exempt ("exento"). */
  taxRate: number;
  /** `01` IVA (the default), `04` INC, or `ZZ` for a line with no tax ("excluido": rate 0). */
  taxCode?: "01" | "04" | "ZZ";
  /** The line's `taxes` as the web app writes them, instead of `taxCode` and `taxRate`. */
  taxes?: readonly Record<string, unknown>[];
  /** The line's discounts and charges (`allowance_charges`) as the web app writes them. */
  allowanceCharges?: readonly Record<string, unknown>[];
}

/** A line's `taxes` column: its own, or the one tax `taxCode` and `taxRate` say (none for ZZ). */
export function lineTaxes(line: LineInput): readonly Record<string, unknown>[] {
  if (line.taxes) return line.taxes;
  return line.taxCode === "ZZ" ? [] : [{ code: line.taxCode ?? "01", percent: line.taxRate }];
}

/** 2 × 50.000 at 19 % IVA and 1 × 10.000 exempt: subtotal 110.000, tax 19.000, total 129.000. */
export const DEFAULT_LINES: readonly LineInput[] = [
  { description: "Servicio de consultoría", quantity: 2, unitPrice: 50_000, taxRate: 19 },
  { description: "Libro técnico (exento)", quantity: 1, unitPrice: 10_000, taxRate: 0 },
];

/** A random string of `length` digits, not starting with 0. */
export const randomDigits = (length: number): string =>
  Array.from({ length }, (_, i) => String(randomInt(i === 0 ? 1 : 0, 10))).join("");

export async function createOrg(db: TestDatabase, name = `Org ${randomUUID().slice(0, 8)}`): Promise<Org> {
  const id = randomUUID();
  await db.superuser("insert into public.organizations (id, name) values ($1, $2)", [id, name]);
  return { id, name };
}

export async function createUser(db: TestDatabase): Promise<User> {
  const id = randomUUID();
  const email = `user-${id}@test.example`;
  await db.superuser("insert into auth.users (id, email) values ($1, $2)", [id, email]);
  return { id, email, claims: { sub: id, role: "authenticated", aud: "authenticated", email } };
}

export async function addMember(db: TestDatabase, org: Org, user: User, role: MemberRole): Promise<void> {
  await db.superuser("insert into public.memberships (org_id, user_id, role) values ($1, $2, $3)", [
    org.id,
    user.id,
    role,
  ]);
}

/** A user who belongs to `org` with `role`. */
export async function createMember(db: TestDatabase, org: Org, role: MemberRole): Promise<User> {
  const user = await createUser(db);
  await addMember(db, org, user, role);
  return user;
}

export async function createCompany(db: TestDatabase, org: Org): Promise<Company> {
  const id = randomUUID();
  const nit = randomDigits(9);
  const prefix = "SETP";
  await db.superuser(
    `insert into public.companies (id, org_id, nit, check_digit, legal_name, trade_name, address, city_code,
       city_name, department_code, department_name, email, phone, invoice_prefix, resolution_number,
       resolution_date, resolution_from, resolution_to, resolution_valid_until, technical_key, software_pin)
     values ($1, $2, $3, $4, $5, 'Prueba', 'Calle 100 # 10-20', '11001', 'Bogotá, D.C.', '11', 'Bogotá',
       'facturacion@test.example', '6011234567', $6, '18760000001', '2019-01-19', 990000000, 995000000,
       '2030-01-19', 'fc8eac422eba16e22ffd8c6f94b3f40a6e38162c', '75315')`,
    [id, org.id, nit, nitCheckDigit(nit), `Empresa ${nit} S.A.S.`, prefix],
  );
  return { id, orgId: org.id, nit, prefix };
}

/**
 * A `pendiente` invoice with its lines (the database computes its amounts); with `status`, it is
 * then moved to that state with the fiscal columns the service would have written.
 */
// Inside the demo numbering range (990000000–995000000) so that pre-send checks pass: from a random
// start, one after another, so a process never repeats a number (random draws did, about once in ten
// bench runs: a thousand invoices of one company in five million numbers).
const NUMBERS = { from: 990_000_000, count: 5_000_001 };
let numbered = randomInt(0, NUMBERS.count);
const nextInvoiceNumber = () => NUMBERS.from + (numbered++ % NUMBERS.count);

export async function createInvoice(
  db: TestDatabase,
  org: Org,
  company: Company,
  options: { status?: InvoiceStatus; lines?: readonly LineInput[] } = {},
): Promise<Invoice> {
  const id = randomUUID();
  const number = `${company.prefix}${nextInvoiceNumber()}`;
  const buyerNit = randomDigits(9);
  await db.superuser(
    `insert into public.invoices (id, org_id, company_id, number, buyer_id_type, buyer_id_number,
       buyer_check_digit, buyer_name, buyer_email, buyer_address, buyer_city_code)
     values ($1, $2, $3, $4, '31', $5, $6, 'Cliente Prueba S.A.S.', 'cliente@test.example',
       'Avenida 68 # 1-10', '11001')`,
    [id, org.id, company.id, number, buyerNit, nitCheckDigit(buyerNit)],
  );
  const lineIds: string[] = [];
  for (const [index, line] of (options.lines ?? DEFAULT_LINES).entries()) {
    const lineId = randomUUID();
    lineIds.push(lineId);
    await db.superuser(
      `insert into public.invoice_lines (id, invoice_id, org_id, position, description, quantity, unit_price,
         taxes, allowance_charges)
       values ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb, $9::text::jsonb)`,
      [
        lineId,
        id,
        org.id,
        index + 1,
        line.description,
        line.quantity,
        line.unitPrice,
        JSON.stringify(lineTaxes(line)),
        JSON.stringify(line.allowanceCharges ?? []),
      ],
    );
  }
  const status = options.status ?? "pendiente";
  if (status !== "pendiente") await setInvoiceStatus(db, id, status);
  return { id, orgId: org.id, companyId: company.id, number, status, lineIds };
}

/** Writes the fiscal columns as the service leaves them in `status`. */
export async function setInvoiceStatus(
  db: TestDatabase,
  invoiceId: string,
  status: InvoiceStatus,
): Promise<void> {
  const fiscal: Record<InvoiceStatus, string> = {
    pendiente: "status = 'pendiente'",
    en_proceso: `status = 'en_proceso', environment = 'uat', attempt_count = 1, claimed_at = now(),
      last_code = 'validation_pending', last_message = 'sent; the authority has not decided on this invoice yet'`,
    transmitida: `status = 'transmitida', environment = 'uat', attempt_count = 1, transmitted_at = now(),
      authority_code = encode(sha384(convert_to(id::text, 'UTF8')), 'hex'), qr_text = 'https://qr.test/' || id,
      provider_reference = 'sandbox-' || id, last_code = 'accepted', last_message = 'the authority accepted this invoice'`,
    error: `status = 'error', environment = 'uat', attempt_count = 1, last_code = 'rejected',
      last_message = 'the authority rejected this invoice (FAD06); correct it, then pass reissue: true to send it again',
      authority_message = 'Regla: FAD06, Rechazo: el CUFE no está bien calculado.',
      authority_rules = '[{"rule": "FAD06", "kind": "rechazo", "message": "el CUFE no está bien calculado."}]'`,
  };
  // past pendiente, it was submitted once, with the issuer frozen as it was then
  const sent =
    status === "pendiente"
      ? ""
      : ", submitted_attempt = 1, issuer_snapshot = einv_private.issuer_of(company_id)";
  await db.superuser(`update public.invoices set ${fiscal[status]}${sent} where id = $1`, [invoiceId]);
}

/** An audit event, as the service's database API functions record them. */
export async function createEvent(
  db: TestDatabase,
  invoice: Invoice,
  kind = "invoice.created",
): Promise<number> {
  const [row] = await db.superuser<{ id: string }>(
    `insert into public.events (org_id, document_type, document_id, kind, data)
     values ($1, 'invoice', $2, $3, '{}') returning id::text`,
    [invoice.orgId, invoice.id, kind],
  );
  return Number(row?.id);
}

export interface Tenant {
  org: Org;
  company: Company;
  admin: User;
  operador: User;
  lector: User;
}

/** An organization with one member per role and one company. */
export async function createTenant(db: TestDatabase): Promise<Tenant> {
  const org = await createOrg(db);
  const [admin, operador, lector, company] = await Promise.all([
    createMember(db, org, "admin"),
    createMember(db, org, "operador"),
    createMember(db, org, "lector"),
    createCompany(db, org),
  ]);
  return { org, company, admin, operador, lector };
}
