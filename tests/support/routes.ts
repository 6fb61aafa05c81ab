/**
 * Every route of the `einvoicing` function, listed once: its path, its request schema (the one the
 * route file exports), the roles that may call it, how to build a valid body acting on a fresh
 * document of a given organization, and what a caller gets when that document is another
 * organization's. The access matrix (tests/http/access-matrix.test.ts) and the schema fuzzer
 * (tests/http/fuzz.test.ts) run every case over this table, and a test fails when the app mounts a
 * route that is not in it: a new route is covered by adding one entry here.
 *
 * The fixture is the real app on one test database, two organizations with their members and
 * credentials, and the sandbox providers at the network edge (every request reaching it recorded).
 */
import type { z } from "zod";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { SANDBOX_KEY, saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import {
  createInvoice,
  createTenant,
  type Invoice,
  type MemberRole,
  type Tenant,
} from "../../devkit/factories.ts";
import { createWebhookEndpoint } from "../../devkit/webhooks.ts";
import { CreditNoteRequest, CreditNoteResponse } from "../../functions/credit-notes/create.ts";
import {
  DeliverRequest as CreditNoteDeliverRequest,
  DeliverResponse as CreditNoteDeliverResponse,
} from "../../functions/credit-notes/deliver.ts";
import {
  RefreshRequest as CreditNoteRefreshRequest,
  RefreshResponse as CreditNoteRefreshResponse,
} from "../../functions/credit-notes/refresh.ts";
import { ReissueRequest } from "../../functions/credit-notes/reissue.ts";
import {
  RepresentationRequest as CreditNoteRepresentationRequest,
  RepresentationResponse as CreditNoteRepresentationResponse,
} from "../../functions/credit-notes/representation.ts";
import { DebitNoteRequest, DebitNoteResponse } from "../../functions/debit-notes/create.ts";
import {
  DeliverRequest as DebitNoteDeliverRequest,
  DeliverResponse as DebitNoteDeliverResponse,
} from "../../functions/debit-notes/deliver.ts";
import {
  RefreshRequest as DebitNoteRefreshRequest,
  RefreshResponse as DebitNoteRefreshResponse,
} from "../../functions/debit-notes/refresh.ts";
import { ReissueRequest as DebitNoteReissueRequest } from "../../functions/debit-notes/reissue.ts";
import {
  RepresentationRequest as DebitNoteRepresentationRequest,
  RepresentationResponse as DebitNoteRepresentationResponse,
} from "../../functions/debit-notes/representation.ts";
import { IntegrationSaveRequest, IntegrationSaveResponse } from "../../functions/integrations/save.ts";
import { IntegrationTestRequest, IntegrationTestResponse } from "../../functions/integrations/test.ts";
import { TestSetRequest, TestSetResponse } from "../../functions/integrations/test-set.ts";
import { DeliverRequest, DeliverResponse } from "../../functions/invoices/deliver.ts";
import { RefreshRequest, RefreshResponse } from "../../functions/invoices/refresh.ts";
import { RepresentationRequest, RepresentationResponse } from "../../functions/invoices/representation.ts";
import { TransmitRequest, TransmitResponse } from "../../functions/invoices/transmit.ts";
import { WebhookSaveRequest, WebhookSaveResponse } from "../../functions/webhooks/save.ts";
import { WebhookTestRequest, WebhookTestResponse } from "../../functions/webhooks/test.ts";
import {
  createSandboxDeliver,
  createSandboxDocsgen,
  createSandboxProvider,
  createSandboxRouter,
  type SandboxDeliver,
  type SandboxProvider,
} from "../../sandbox/index.ts";
import type { ErrorCode } from "../../shared/kernel/errors.ts";

export const PROVIDERS = "https://sandbox.provider.test";
export const RECONCILE_SECRET = "reconcile-secret-for-the-route-table-0123456789";

export interface RouteFixture {
  db: TestDatabase;
  t: TestApp;
  home: Tenant;
  other: Tenant;
  adapterTax: SandboxProvider;
  mail: SandboxDeliver;
  /** Every request that reached the provider edge, whichever provider it was for. */
  edge: Request[];
  /** A `pendiente` invoice of `owner`. */
  pending(owner: Tenant): Promise<Invoice>;
  /** An invoice of `owner` the sandbox accepted, sent through /transmit. */
  transmitted(owner: Tenant): Promise<Invoice>;
  /** A credit note of `owner` for a transmitted invoice, accepted or rejected by the sandbox. */
  creditNote(owner: Tenant, outcome: "emitida" | "error"): Promise<string>;
  /** A debit note of `owner` charging interest on a transmitted invoice, accepted or rejected. */
  debitNote(owner: Tenant, outcome: "emitida" | "error"): Promise<string>;
  /** A webhook endpoint of `owner` (at the provider edge, which answers it 404). */
  webhook(owner: Tenant): Promise<string>;
  close(): Promise<void>;
}

export async function createRouteFixture(
  options: { env?: Record<string, string> } = {},
): Promise<RouteFixture> {
  const db = await createTestDatabase();
  const adapterTax = createSandboxProvider();
  const mail = createSandboxDeliver();
  const router = createSandboxRouter({ adapterTax, docsgen: createSandboxDocsgen(), deliver: mail });
  const edge: Request[] = [];
  const t = await createTestApp(db, {
    env: { EINV_PROVIDER_TIMEOUT_MS: "2000", EINV_RECONCILE_SECRET: RECONCILE_SECRET, ...options.env },
    providerFetch: (input, init) => {
      const request = new Request(input, init);
      edge.push(request.clone());
      return router(request);
    },
  });
  const [home, other] = await Promise.all([createTenant(db), createTenant(db)]);
  for (const tenant of [home, other]) {
    await saveCredential(t.deps, tenant, { url: `${PROVIDERS}/adapter-tax` });
    await saveCredential(t.deps, tenant, { url: `${PROVIDERS}/deliver`, service: "deliver" });
  }
  const post = async (owner: Tenant, path: string, body: Record<string, unknown>) => {
    const response = await t.post(path, { org_id: owner.org.id, ...body }, await t.token(owner.operador));
    if (response.status !== 200) throw new Error(`fixture: ${path} answered ${response.status}`);
    return response.json();
  };
  const fixture: RouteFixture = {
    db,
    t,
    home,
    other,
    adapterTax,
    mail,
    edge,
    pending: (owner) => createInvoice(db, owner.org, owner.company),
    async transmitted(owner) {
      const invoice = await fixture.pending(owner);
      const { results } = await post(owner, "/transmit", { invoice_ids: [invoice.id] });
      if (results[0].status !== "transmitida") throw new Error(`fixture: transmit gave ${results[0].status}`);
      return invoice;
    },
    async creditNote(owner, outcome) {
      const invoice = await fixture.transmitted(owner);
      // the sandbox rejects a note whose reason says RECHAZAR (docs/sandbox.md)
      const reason = outcome === "error" ? "RECHAZAR por prueba" : "Devolución";
      const note = await post(owner, "/credit-notes", { invoice_id: invoice.id, concept_code: "2", reason });
      if (note.status !== outcome) throw new Error(`fixture: credit note is ${note.status}, not ${outcome}`);
      return note.credit_note_id;
    },
    async debitNote(owner, outcome) {
      const invoice = await fixture.transmitted(owner);
      const note = await post(owner, "/debit-notes", {
        invoice_id: invoice.id,
        concept_code: "1",
        reason: outcome === "error" ? "RECHAZAR por prueba" : "Intereses de mora",
        lines: [{ description: "Intereses de mora", quantity: "1", unit_price: "47600" }],
      });
      if (note.status !== outcome) throw new Error(`fixture: debit note is ${note.status}, not ${outcome}`);
      return note.debit_note_id;
    },
    webhook: async (owner) =>
      (await createWebhookEndpoint(db, t.deps.secretBox, owner.org.id, `${PROVIDERS}/hooks/in`)).id,
    close: () => db.close(),
  };
  return fixture;
}

/** What a caller gets: a status, and for an error its code, else a check of the success body. */
export interface Expected {
  status: number;
  code?: ErrorCode;
  /** For a 200: a pattern the body must match (toMatchObject). */
  matches?: Record<string, unknown>;
}

export interface RouteSpec {
  /** Under `/einvoicing`, as a caller posts it. */
  path: string;
  /** The request schema the route file exports. */
  request: z.ZodType;
  /** The body the route answers with HTTP 200. */
  response: z.ZodType;
  /** The member roles the route accepts; every other role is 403. */
  roles: readonly MemberRole[];
  /** A valid body acting on a fresh document (or company) of `owner`, with `owner`'s org_id. */
  body(fx: RouteFixture, owner: Tenant): Promise<Record<string, unknown>>;
  /** What a member allowed on the route gets when the body names another organization's document. */
  foreign: Expected;
  /**
   * What a member allowed on the route gets for `body` when it is not a 200: /integrations/test-set
   * runs only for a company in DIAN mode, which the fixture's companies are not (its own tests run
   * it against DIAN's stand-in: tests/e2e/local-server-test-set.test.ts).
   */
  allowed?: Expected;
}

const DOCUMENT: readonly MemberRole[] = ["admin", "operador"];
const ADMIN: readonly MemberRole[] = ["admin"];
const notFound: Expected = { status: 404, code: "not_found" };
const org = (owner: Tenant) => ({ org_id: owner.org.id });
const credential = (owner: Tenant) => ({
  ...org(owner),
  company_id: owner.company.id,
  service: "adapter-tax",
  environment: "uat",
  api_key: SANDBOX_KEY,
  url: `${PROVIDERS}/adapter-tax`,
});

export const EINVOICING_ROUTES: readonly RouteSpec[] = [
  {
    path: "/transmit",
    request: TransmitRequest,
    response: TransmitResponse,
    roles: DOCUMENT,
    body: async (fx, owner) => ({ ...org(owner), invoice_ids: [(await fx.pending(owner)).id] }),
    // one entry per requested id, HTTP 200 even so (DESIGN §4)
    foreign: { status: 200, matches: { results: [{ status: "error", message: "invoice not found" }] } },
  },
  {
    path: "/refresh",
    request: RefreshRequest,
    response: RefreshResponse,
    roles: DOCUMENT,
    body: async (fx, owner) => ({ ...org(owner), invoice_id: (await fx.transmitted(owner)).id }),
    foreign: notFound,
  },
  {
    path: "/representation",
    request: RepresentationRequest,
    response: RepresentationResponse,
    roles: DOCUMENT,
    body: async (fx, owner) => ({ ...org(owner), invoice_id: (await fx.pending(owner)).id }),
    foreign: notFound,
  },
  {
    path: "/deliver",
    request: DeliverRequest,
    response: DeliverResponse,
    roles: DOCUMENT,
    body: async (fx, owner) => ({ ...org(owner), invoice_id: (await fx.transmitted(owner)).id }),
    foreign: notFound,
  },
  {
    path: "/credit-notes",
    request: CreditNoteRequest,
    response: CreditNoteResponse,
    roles: DOCUMENT,
    body: async (fx, owner) => ({
      ...org(owner),
      invoice_id: (await fx.transmitted(owner)).id,
      concept_code: "2",
      reason: "Anulación",
    }),
    foreign: notFound,
  },
  {
    path: "/credit-notes/reissue",
    request: ReissueRequest,
    response: CreditNoteResponse,
    roles: DOCUMENT,
    body: async (fx, owner) => ({ ...org(owner), credit_note_id: await fx.creditNote(owner, "error") }),
    foreign: notFound,
  },
  {
    path: "/credit-notes/representation",
    request: CreditNoteRepresentationRequest,
    response: CreditNoteRepresentationResponse,
    roles: DOCUMENT,
    body: async (fx, owner) => ({ ...org(owner), credit_note_id: await fx.creditNote(owner, "emitida") }),
    foreign: notFound,
  },
  {
    path: "/credit-notes/refresh",
    request: CreditNoteRefreshRequest,
    response: CreditNoteRefreshResponse,
    roles: DOCUMENT,
    body: async (fx, owner) => ({ ...org(owner), credit_note_id: await fx.creditNote(owner, "emitida") }),
    foreign: notFound,
  },
  {
    path: "/credit-notes/deliver",
    request: CreditNoteDeliverRequest,
    response: CreditNoteDeliverResponse,
    roles: DOCUMENT,
    body: async (fx, owner) => ({ ...org(owner), credit_note_id: await fx.creditNote(owner, "emitida") }),
    foreign: notFound,
  },
  {
    path: "/debit-notes",
    request: DebitNoteRequest,
    response: DebitNoteResponse,
    roles: DOCUMENT,
    body: async (fx, owner) => ({
      ...org(owner),
      invoice_id: (await fx.transmitted(owner)).id,
      concept_code: "2",
      reason: "Gastos de cobranza",
      lines: [{ description: "Gastos de cobranza", quantity: "1", unit_price: "15000" }],
    }),
    foreign: notFound,
  },
  {
    path: "/debit-notes/reissue",
    request: DebitNoteReissueRequest,
    response: DebitNoteResponse,
    roles: DOCUMENT,
    body: async (fx, owner) => ({ ...org(owner), debit_note_id: await fx.debitNote(owner, "error") }),
    foreign: notFound,
  },
  {
    path: "/debit-notes/representation",
    request: DebitNoteRepresentationRequest,
    response: DebitNoteRepresentationResponse,
    roles: DOCUMENT,
    body: async (fx, owner) => ({ ...org(owner), debit_note_id: await fx.debitNote(owner, "emitida") }),
    foreign: notFound,
  },
  {
    path: "/debit-notes/refresh",
    request: DebitNoteRefreshRequest,
    response: DebitNoteRefreshResponse,
    roles: DOCUMENT,
    body: async (fx, owner) => ({ ...org(owner), debit_note_id: await fx.debitNote(owner, "emitida") }),
    foreign: notFound,
  },
  {
    path: "/debit-notes/deliver",
    request: DebitNoteDeliverRequest,
    response: DebitNoteDeliverResponse,
    roles: DOCUMENT,
    body: async (fx, owner) => ({ ...org(owner), debit_note_id: await fx.debitNote(owner, "emitida") }),
    foreign: notFound,
  },
  {
    path: "/integrations/test",
    request: IntegrationTestRequest,
    response: IntegrationTestResponse,
    roles: ADMIN,
    body: async (_fx, owner) => credential(owner),
    foreign: notFound,
  },
  {
    path: "/integrations/test-set",
    request: TestSetRequest,
    response: TestSetResponse,
    roles: ADMIN,
    body: async (_fx, owner) => ({ ...org(owner), company_id: owner.company.id }),
    foreign: notFound,
    allowed: { status: 422, code: "business_rule" },
  },
  {
    path: "/integrations/save",
    request: IntegrationSaveRequest,
    response: IntegrationSaveResponse,
    roles: ADMIN,
    body: async (_fx, owner) => credential(owner),
    foreign: notFound,
  },
  {
    path: "/webhooks/save",
    request: WebhookSaveRequest,
    response: WebhookSaveResponse,
    roles: ADMIN,
    // a change of an endpoint (a new one each time would reach the org's limit of ten)
    body: async (fx, owner) => ({ ...org(owner), webhook_id: await fx.webhook(owner), enabled: true }),
    foreign: notFound,
  },
  {
    path: "/webhooks/test",
    request: WebhookTestRequest,
    response: WebhookTestResponse,
    roles: ADMIN,
    body: async (fx, owner) => ({ ...org(owner), webhook_id: await fx.webhook(owner) }),
    foreign: notFound,
  },
];
