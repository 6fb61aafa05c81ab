/**
 * The three kinds of fiscal document, as the route tests that are generic over kinds see them: the
 * same lifecycle (refresh, representation, deliver) behind different routes, id fields, tables and
 * words.
 * Suites run their generic cases once per kind with `describe.each(DOCUMENT_KINDS)`.
 */
import { expect } from "vitest";
import { saveCredential } from "../../devkit/credentials.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import type { RouteSuite } from "./route-suite.ts";

export interface DocumentKind {
  name: "invoice" | "credit note" | "debit note";
  /** The kind as the database and the provider's protocol name it. */
  kind: "invoice" | "credit_note" | "debit_note";
  idField: "invoice_id" | "credit_note_id" | "debit_note_id";
  table: "invoices" | "credit_notes" | "debit_notes";
  /** The organization's storage folder for the kind's PDFs. */
  folder: "invoices" | "credit-notes" | "debit-notes";
  /** The status of a document the authority accepted. */
  accepted: "transmitida" | "emitida";
  /** What an idle document the provider never received tells the caller to do. */
  howToResend: RegExp;
  routes: { refresh: string; representation: string; deliver: string };
  /** DIAN's code of the document type: `01` invoice, `91` credit note, `92` debit note. */
  typeCode: "01" | "91" | "92";
  /**
   * Sends a new document of the suite's tenant through the API. `beforeSubmit` runs just before the
   * call that submits it, with the document's id when it is known by then (an invoice's is, a
   * credit note's is not: the call creates it), to set what the sandbox does to that submit.
   */
  send(suite: RouteSuite, beforeSubmit?: (id?: string) => void): Promise<{ id: string; status: string }>;
  /** A document of the suite's tenant, sent or not. */
  any(suite: RouteSuite): Promise<string>;
  /** A document of another organization. */
  foreign(suite: RouteSuite): Promise<string>;
}

/** A new invoice of `owner`, accepted through /transmit. */
async function transmittedInvoice(suite: RouteSuite, owner: Tenant, as: string): Promise<Invoice> {
  const invoice = await createInvoice(suite.db, owner.org, owner.company);
  const sent = await suite.t.post("/transmit", { org_id: owner.org.id, invoice_ids: [invoice.id] }, as);
  expect((await sent.json()).results[0].status).toBe("transmitida");
  return invoice;
}

/** A credit note annulling `invoice`, through /credit-notes: its answer. */
async function creditNote(suite: RouteSuite, owner: Tenant, invoice: Invoice, as: string) {
  const response = await suite.t.post(
    "/credit-notes",
    { org_id: owner.org.id, invoice_id: invoice.id, concept_code: "2", reason: "Anulación" },
    as,
  );
  return (await response.json()) as { credit_note_id: string; status: string };
}

export const INVOICE: DocumentKind = {
  name: "invoice",
  kind: "invoice",
  idField: "invoice_id",
  table: "invoices",
  folder: "invoices",
  accepted: "transmitida",
  howToResend: /reissue: true/,
  routes: { refresh: "/refresh", representation: "/representation", deliver: "/deliver" },
  typeCode: "01",
  async send(suite, beforeSubmit) {
    const { db, t, tenant, token } = suite;
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    beforeSubmit?.(invoice.id);
    const sent = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
    return { id: invoice.id, status: (await sent.json()).results[0].status };
  },
  any: async ({ db, tenant }) => (await createInvoice(db, tenant.org, tenant.company)).id,
  async foreign({ db }) {
    const other = await createTenant(db);
    return (await createInvoice(db, other.org, other.company, { status: "transmitida" })).id;
  },
};

export const CREDIT_NOTE: DocumentKind = {
  name: "credit note",
  kind: "credit_note",
  idField: "credit_note_id",
  table: "credit_notes",
  folder: "credit-notes",
  accepted: "emitida",
  howToResend: /\/credit-notes\/reissue/,
  routes: {
    refresh: "/credit-notes/refresh",
    representation: "/credit-notes/representation",
    deliver: "/credit-notes/deliver",
  },
  typeCode: "91",
  async send(suite, beforeSubmit) {
    const invoice = await transmittedInvoice(suite, suite.tenant, suite.token);
    beforeSubmit?.();
    const note = await creditNote(suite, suite.tenant, invoice, suite.token);
    return { id: note.credit_note_id, status: note.status };
  },
  any: async (suite) => (await CREDIT_NOTE.send(suite)).id,
  async foreign(suite) {
    const other = await createTenant(suite.db);
    await saveCredential(suite.t.deps, other);
    const as = await suite.t.token(other.operador);
    return (await creditNote(suite, other, await transmittedInvoice(suite, other, as), as)).credit_note_id;
  },
};

/** A debit note charging interest on `invoice`, through /debit-notes: its answer. */
async function debitNote(suite: RouteSuite, owner: Tenant, invoice: Invoice, as: string) {
  const response = await suite.t.post(
    "/debit-notes",
    {
      org_id: owner.org.id,
      invoice_id: invoice.id,
      concept_code: "1",
      reason: "Intereses de mora",
      lines: [{ description: "Intereses de mora: 30 días", quantity: "1", unit_price: "47600" }],
    },
    as,
  );
  return (await response.json()) as { debit_note_id: string; status: string };
}

export const DEBIT_NOTE: DocumentKind = {
  name: "debit note",
  kind: "debit_note",
  idField: "debit_note_id",
  table: "debit_notes",
  folder: "debit-notes",
  accepted: "emitida",
  howToResend: /\/debit-notes\/reissue/,
  routes: {
    refresh: "/debit-notes/refresh",
    representation: "/debit-notes/representation",
    deliver: "/debit-notes/deliver",
  },
  typeCode: "92",
  async send(suite, beforeSubmit) {
    const invoice = await transmittedInvoice(suite, suite.tenant, suite.token);
    beforeSubmit?.();
    const note = await debitNote(suite, suite.tenant, invoice, suite.token);
    return { id: note.debit_note_id, status: note.status };
  },
  any: async (suite) => (await DEBIT_NOTE.send(suite)).id,
  async foreign(suite) {
    const other = await createTenant(suite.db);
    await saveCredential(suite.t.deps, other);
    const as = await suite.t.token(other.operador);
    return (await debitNote(suite, other, await transmittedInvoice(suite, other, as), as)).debit_note_id;
  },
};

export const DOCUMENT_KINDS = [INVOICE, CREDIT_NOTE, DEBIT_NOTE];

/** `describe.each` rows for a route of every kind: its path and the kind's name (for the title), and the kind. */
export const kindsOf = (route: keyof DocumentKind["routes"]) =>
  DOCUMENT_KINDS.map((kind) => [kind.routes[route], kind.name, kind] as const);
