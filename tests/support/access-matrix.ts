/**
 * The access matrix: for a route of tests/support/routes.ts, every way a caller can be refused or
 * let in — no token, a bad one of each kind, no `apikey`, a member of another organization, each
 * role, a document of another organization — with the answer it must get. A refused call must
 * change nothing: not a row anywhere in the database (every table's rows are digested before and
 * after) and not a request to any provider (the sandbox edge and its submission log).
 */
import { type JWK, SignJWT } from "jose";
import { TEST_API_KEY, TEST_URL } from "../../devkit/app.ts";
import { createLocalSigner } from "../../devkit/auth.ts";
import { expectAnswerInContract } from "../../devkit/contract.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import type { MemberRole, Tenant, User } from "../../devkit/factories.ts";
import { type Expected, RECONCILE_SECRET, type RouteFixture, type RouteSpec } from "./routes.ts";

/** How a case calls: with which token (none when undefined) and headers, on whose document. */
export interface Call {
  token?: string;
  /** Headers to send instead of the usual ones (`apikey: null` leaves it out). */
  headers?: Record<string, string | null>;
  /** Whose document the body names; the body's org_id is always the home organization's. */
  owner: "home" | "other";
}

export interface AccessCase {
  name: string;
  call(fx: RouteFixture): Promise<Call>;
  expected(route: RouteSpec): Expected;
  /** A refusal: nothing may change. */
  refused(route: RouteSpec): boolean;
}

const unauthenticated: Expected = { status: 401, code: "unauthenticated" };
const forbidden: Expected = { status: 403, code: "forbidden" };
const ROLES: readonly MemberRole[] = ["admin", "operador", "lector"];
const tokenOf = (fx: RouteFixture, user: User, options = {}) => fx.t.token(user, options);

/** A token with a valid signature of a key the service does not trust, and an unsigned one. */
async function foreignSigned(user: User): Promise<string> {
  return (await createLocalSigner(`${TEST_URL}/auth/v1`)).sign(user);
}
async function unsigned(fx: RouteFixture, user: User): Promise<string> {
  const [, payload] = (await tokenOf(fx, user)).split(".");
  const header = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");
  return `${header}.${payload}.`;
}
async function hs256(user: User): Promise<string> {
  return new SignJWT({ role: "authenticated", email: user.email })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(user.id)
    .setIssuer(`${TEST_URL}/auth/v1`)
    .setAudience("authenticated")
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode("a-shared-secret-the-service-does-not-trust"));
}
/** The trusted key's public half reused as an HMAC secret: the classic algorithm confusion. */
async function keyConfusion(fx: RouteFixture, user: User): Promise<string> {
  const publicJwk = fx.t.signer.jwks.keys[0] as JWK;
  return new SignJWT({ role: "authenticated" })
    .setProtectedHeader({ alg: "HS256", kid: publicJwk.kid ?? "local" })
    .setSubject(user.id)
    .setIssuer(`${TEST_URL}/auth/v1`)
    .setAudience("authenticated")
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode(JSON.stringify(publicJwk)));
}

const bad = (name: string, call: AccessCase["call"]): AccessCase => ({
  name,
  call,
  expected: () => unauthenticated,
  refused: () => true,
});
const operadorCall =
  (token: (fx: RouteFixture, user: User) => Promise<string>) => async (fx: RouteFixture) => ({
    token: await token(fx, fx.home.operador),
    owner: "home" as const,
  });

/** Every case, for any route: the same list for all of them. */
export const ACCESS_CASES: readonly AccessCase[] = [
  bad("no token", async () => ({ owner: "home" })),
  bad("a garbage token", async () => ({ token: "not-a-jwt", owner: "home" })),
  bad("a token with a garbage signature", async (fx) => {
    const [header, payload] = (await tokenOf(fx, fx.home.operador)).split(".");
    return { token: `${header}.${payload}.c2lnbmF0dXJl`, owner: "home" };
  }),
  bad(
    "a token signed by a foreign key",
    operadorCall((_fx, user) => foreignSigned(user)),
  ),
  bad("an unsigned token (alg: none)", operadorCall(unsigned)),
  bad(
    "an HS256 token with a guessed secret",
    operadorCall((_fx, user) => hs256(user)),
  ),
  bad("an HS256 token keyed with the trusted public key", operadorCall(keyConfusion)),
  bad(
    "an expired token",
    operadorCall((fx, user) => tokenOf(fx, user, { expiresIn: "-1m" })),
  ),
  bad(
    "a token for another audience",
    operadorCall((fx, user) => tokenOf(fx, user, { audience: "anon" })),
  ),
  bad(
    "a token from another issuer",
    operadorCall((fx, user) => tokenOf(fx, user, { issuer: "https://evil.test/auth/v1" })),
  ),
  bad(
    "a token claiming the service role",
    operadorCall((fx, user) => tokenOf(fx, user, { role: "service_role" })),
  ),
  bad("the reconcile secret as bearer", async () => ({ token: RECONCILE_SECRET, owner: "home" })),
  bad("no apikey header", async (fx) => ({
    token: await tokenOf(fx, fx.home.admin),
    headers: { apikey: null },
    owner: "home",
  })),
  bad("a wrong apikey", async (fx) => ({
    token: await tokenOf(fx, fx.home.admin),
    headers: { apikey: `${TEST_API_KEY}x` },
    owner: "home",
  })),
  {
    name: "an admin of another organization",
    call: async (fx) => ({ token: await tokenOf(fx, fx.other.admin), owner: "home" }),
    expected: () => forbidden,
    refused: () => true,
  },
  ...ROLES.map(
    (role): AccessCase => ({
      name: `the organization's ${role}`,
      call: async (fx) => ({ token: await tokenOf(fx, fx.home[role]), owner: "home" }),
      expected: (route) => (route.roles.includes(role) ? (route.allowed ?? { status: 200 }) : forbidden),
      refused: (route) => !route.roles.includes(role),
    }),
  ),
  {
    name: "a member allowed on the route, naming another organization's document",
    call: async (fx) => ({ token: await tokenOf(fx, fx.home.admin), owner: "other" }),
    expected: (route) => route.foreign,
    refused: () => true,
  },
];

/** The owner tenant of a call. */
export const ownerOf = (fx: RouteFixture, call: Call): Tenant => (call.owner === "home" ? fx.home : fx.other);

/** Sends `body` to the einvoicing route as `call` says. */
export async function send(fx: RouteFixture, route: RouteSpec, body: object, call: Call): Promise<Response> {
  const headers: Record<string, string> = { apikey: TEST_API_KEY, "content-type": "application/json" };
  if (call.token !== undefined) headers.authorization = `Bearer ${call.token}`;
  for (const [name, value] of Object.entries(call.headers ?? {})) {
    if (value === null) delete headers[name];
    else headers[name] = value;
  }
  const response = await fx.t.app.request(`/einvoicing${route.path}`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  await expectAnswerInContract(route.path, response); // declared status and shape, as every route test
  return response;
}

/**
 * Everything a call could change: each table's row count and a digest of all its rows (every
 * schema the service writes: public, einv_private, storage, auth), the requests that reached the
 * provider edge, the documents the sandbox took in and the messages it sent.
 */
export interface Observed {
  tables: Record<string, string>;
  edgeRequests: number;
  submissions: number;
  messages: number;
}

const digestQueries = new WeakMap<TestDatabase, Promise<string>>();

async function digestQuery(db: TestDatabase): Promise<string> {
  const tables = await db.superuser<{ name: string }>(
    `select format('%I.%I', n.nspname, c.relname) as name from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p') and n.nspname in ('public', 'einv_private', 'storage', 'auth')
      order by 1`,
  );
  if (tables.length < 15) throw new Error(`expected the service's tables, found ${tables.length}`);
  return tables
    .map(
      ({ name }) =>
        `select '${name}' as name, count(*) || ' rows, ' ||
                md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as state from ${name} x`,
    )
    .join(" union all ");
}

export async function observe(fx: RouteFixture): Promise<Observed> {
  // what a request started after its answer (webhook messages) is part of what it did
  await fx.t.deps.background.idle();
  let query = digestQueries.get(fx.db);
  if (!query) {
    query = digestQuery(fx.db);
    digestQueries.set(fx.db, query);
  }
  const rows = await fx.db.superuser<{ name: string; state: string }>(await query);
  return {
    tables: Object.fromEntries(rows.map((r) => [r.name, r.state])),
    edgeRequests: fx.edge.length,
    submissions: fx.adapterTax.submissions.length,
    messages: fx.mail.messages.length,
  };
}

/**
 * What members read directly, through PostgREST under RLS (and Storage, whose download reads
 * `storage.objects` as the user): each table with the predicate that selects one organization's
 * rows ($1 is the organization's id), and which of its roles read them (every role unless `roles`
 * says). Every table `authenticated` may select from must be here.
 */
export const MEMBER_READABLE: readonly { table: string; rowsOf: string; roles?: readonly MemberRole[] }[] = [
  { table: "public.organizations", rowsOf: "id = $1" },
  { table: "public.memberships", rowsOf: "org_id = $1" },
  { table: "public.companies", rowsOf: "org_id = $1" },
  { table: "public.invoices", rowsOf: "org_id = $1" },
  { table: "public.invoice_lines", rowsOf: "org_id = $1" },
  { table: "public.events", rowsOf: "org_id = $1 and document_type <> 'credential'" },
  // who tested or saved which credential url: the admins' business only
  { table: "public.events", rowsOf: "org_id = $1 and document_type = 'credential'", roles: ["admin"] },
  { table: "public.representations", rowsOf: "org_id = $1" },
  { table: "public.deliveries", rowsOf: "org_id = $1" },
  { table: "public.credit_notes", rowsOf: "org_id = $1" },
  { table: "public.credit_note_lines", rowsOf: "org_id = $1" },
  { table: "public.debit_notes", rowsOf: "org_id = $1" },
  { table: "public.debit_note_lines", rowsOf: "org_id = $1" },
  // where the org's events are sent: the admins' business, as its credentials are
  { table: "public.webhook_endpoints", rowsOf: "org_id = $1", roles: ["admin"] },
  { table: "storage.objects", rowsOf: "bucket_id = 'service-documentos' and name like $1 || '/%'" },
];

/**
 * Who reads, and whether they must see the organization's rows (all of them) or none: a member
 * sees them when its role is one of the rows' readers.
 */
export const READER_CASES: readonly {
  name: string;
  /** `roles`: the rows' readers, every role when undefined. */
  sees(roles: readonly MemberRole[] | undefined): boolean;
  reader(fx: RouteFixture): User | null;
}[] = [
  ...ROLES.map((role) => ({
    name: `the organization's ${role}`,
    sees: (roles: readonly MemberRole[] | undefined) => roles === undefined || roles.includes(role),
    reader: (fx: RouteFixture) => fx.home[role],
  })),
  { name: "an admin of another organization", sees: () => false, reader: (fx) => fx.other.admin },
  { name: "anon", sees: () => false, reader: () => null },
];
