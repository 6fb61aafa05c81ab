/**
 * The routes that declare `firstCallAuthorizes` check the caller's membership with their first
 * database call — the `_authorized` function their core names through `callAuthorized()` — and
 * never with a call of its own: one round trip less per request (shared/http/authorize.ts).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Tenant } from "../../devkit/factories.ts";
import {
  createSandboxDeliver,
  createSandboxDocsgen,
  createSandboxProvider,
  createSandboxRouter,
} from "../../sandbox/index.ts";
import type { Db, DbScope } from "../../shared/ports/db/port.ts";

let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let token: string;
/** The database functions the app called, in order. */
const calls: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  t = await createTestApp(db, {
    providerFetch: createSandboxRouter({
      adapterTax: createSandboxProvider(),
      docsgen: createSandboxDocsgen(),
      deliver: createSandboxDeliver(),
    }),
  });
  tenant = await createTenant(db);
  await saveCredential(t.deps, tenant);
  token = await t.token(tenant.operador);
  const real: Db = t.deps.db;
  const observed = (scope: DbScope): DbScope => ({
    call: (fn, args) => {
      calls.push(fn);
      return scope.call(fn, args);
    },
  });
  t.deps.db = {
    ...real,
    asUser: (c) => observed(real.asUser(c)),
    asService: () => observed(real.asService()),
  };
});
afterAll(() => db?.close());

describe("a route whose first call authorizes", () => {
  const cases: [string, string, (invoiceId: string) => Record<string, unknown>][] = [
    ["/transmit", "einv_document_claim_sending_authorized", (id) => ({ invoice_ids: [id] })],
    ["/refresh", "einv_document_get_with_credentials_authorized", (id) => ({ invoice_id: id })],
    ["/representation", "einv_document_representation_read_authorized", (id) => ({ invoice_id: id })],
    [
      "/credit-notes/refresh",
      "einv_document_get_with_credentials_authorized",
      () => ({ credit_note_id: randomUUID() }),
    ],
    [
      "/credit-notes/representation",
      "einv_document_representation_read_authorized",
      () => ({ credit_note_id: randomUUID() }),
    ],
  ];
  it.each(cases)(
    "%s checks the membership with its first call, %s, and with no call of its own",
    async (path, first, body) => {
      const invoice = await createInvoice(db, tenant.org, tenant.company);
      calls.length = 0;
      await t.post(path, { org_id: tenant.org.id, ...body(invoice.id) }, token);
      expect(calls[0]).toBe(first);
      expect(calls).not.toContain("einv_caller_membership");
    },
  );
});
