/**
 * The typed client (client/index.ts) as a web app uses it: the real supabase-js, the local server
 * (`npm start`, under Deno) on a fresh PostgreSQL database it seeds itself, the in-process sandbox
 * providers. Every route once, an error, an idempotent retry, and the PDF download.
 */
import { createClient } from "@supabase/supabase-js";
import { describe, expect, inject, it } from "vitest";
import {
  createEinvoicingClient,
  type EinvoicingClient,
  EinvoicingError,
  ROUTES,
  type TransmissionCode,
} from "../../client/index.ts";
import { API_ROUTES, expectAnswerInContract } from "../../devkit/contract.ts";
import { useLocalServer } from "../support/local-server.ts";

const target = inject("database");
const server = useLocalServer(target);

/** fetch, checking every answer of the einvoicing function against docs/openapi.json. */
const contractCheckedFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const route = /\/functions\/v1\/einvoicing(\/.*)$/.exec(new URL(String(input)).pathname)?.[1];
  if (route) await expectAnswerInContract(route, response);
  return response;
};

/** A supabase-js client for a demo user, as a web app has one after sign-in (over `fetch`, if given). */
function clientFor(
  role: "admin" | "operador" | "lector",
  fetch: typeof globalThis.fetch = contractCheckedFetch,
): { einvoicing: EinvoicingClient; orgId: string } {
  const local = server.get().run;
  const user = local.users.find((u) => u.role === role && u.org_id === local.orgs[0]?.id);
  if (!user) throw new Error(`no demo ${role}`);
  // The supabase URL is the project's root; supabase-js adds /functions/v1 and /storage/v1 itself.
  const supabase = createClient(local.base_url.replace(/\/functions$/, ""), local.apikey, {
    accessToken: async () => user.access_token,
    global: { fetch },
  });
  return { einvoicing: createEinvoicingClient(supabase), orgId: user.org_id };
}

const pendingInvoices = (orgId: string) =>
  server.get().run.invoices.filter((invoice) => invoice.org_id === orgId && invoice.status === "pendiente");

/** Awaits `promise`, which must fail with an EinvoicingError, and returns it. */
async function failure(promise: Promise<unknown>): Promise<EinvoicingError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EinvoicingError);
  return error as EinvoicingError;
}

it("names exactly the API's routes: the contract's and the design's", () => {
  expect(
    Object.values(ROUTES)
      .map((route) => `/${route}`)
      .sort(),
  ).toEqual(API_ROUTES);
});

describe("createEinvoicingClient(supabase) on answers that are not the API's", () => {
  const withFetch = (answer: () => unknown) =>
    createEinvoicingClient(
      createClient("http://127.0.0.1:9", "sb_publishable_x", {
        accessToken: async () => "token",
        global: { fetch: (async () => answer()) as unknown as typeof fetch },
      }),
    );
  const body = { org_id: crypto.randomUUID(), invoice_ids: [crypto.randomUUID()] };

  it("refuses a 200 that is not a JSON object (an HTML page at a wrong URL)", async () => {
    const html = withFetch(() => new Response("<html></html>", { headers: { "content-type": "text/html" } }));
    const error = await failure(html.transmit(body));
    expect({ code: error.code, status: error.status }).toEqual({ code: "unexpected_response", status: 200 });
  });

  it("reads the API's error from any fetch's Response, not only the native class", async () => {
    const errorBody = { error: { code: "business_rule", message: "No.", request_id: "req-1" } };
    // what node-fetch or cross-fetch hand back: the same methods, another class
    const foreign = withFetch(() => ({
      ok: false,
      status: 422,
      headers: new Headers({ "content-type": "application/json", "x-request-id": "req-1" }),
      json: async () => errorBody,
      text: async () => JSON.stringify(errorBody),
    }));
    const error = await failure(foreign.transmit(body));
    expect(error).toMatchObject({ code: "business_rule", status: 422, request_id: "req-1", message: "No." });
  });

  it("refuses an idempotency key that could not be sent as a header, sending nothing", async () => {
    let sent = 0;
    const counting = withFetch(() => {
      sent++;
      return Response.json({ results: [] });
    });
    const error = await failure(counting.transmit(body, { idempotencyKey: "k-\u{1F511}" }));
    expect(error).toMatchObject({ code: "validation_failed", details: [{ field: "Idempotency-Key" }] });
    expect(sent).toBe(0);
  });
});

describe.skipIf(target.kind !== "postgres")(
  "createEinvoicingClient(supabase) against the local server",
  () => {
    it("transmits, refreshes, keeps and downloads the PDF, and delivers an invoice", async () => {
      const { einvoicing, orgId } = clientFor("operador");
      const [first, second] = pendingInvoices(orgId);
      if (!first || !second) throw new Error("the seed has fewer than two pending invoices");

      const { results } = await einvoicing.transmit({ org_id: orgId, invoice_ids: [first.id, second.id] });
      const accepted = (id: string) => ({
        invoice_id: id,
        status: "transmitida",
        code: "accepted",
        message: "the authority accepted this invoice",
        authority_message: expect.any(String),
      });
      expect(results).toEqual([accepted(first.id), accepted(second.id)]);
      // the codes are typed: a program branches on them, never on the message
      const codes: TransmissionCode[] = results.map((r) => r.code);
      expect(codes).toEqual(["accepted", "accepted"]);

      const refreshed = await einvoicing.refresh({ org_id: orgId, invoice_id: first.id });
      expect(refreshed).toMatchObject({ invoice_id: first.id, status: "transmitida", code: "accepted" });

      const { pdf, path, filename, stamped } = await einvoicing.downloadRepresentation({
        org_id: orgId,
        invoice_id: first.id,
      });
      expect({ stamped, filename }).toEqual({ stamped: true, filename: expect.stringMatching(/\.pdf$/) });
      expect(path).toContain(first.id);
      const bytes = new Uint8Array(await pdf.arrayBuffer());
      expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-");
      expect(bytes.byteLength).toBeGreaterThan(1000);

      // "Descargar XML": the AttachedDocument beside the PDF, with the same session
      const { xml, xml_path } = await einvoicing.downloadAttachedDocument({
        org_id: orgId,
        invoice_id: first.id,
      });
      expect(xml_path).toMatch(new RegExp(`^${orgId}/invoices/${first.id}/ad-.+\\.xml$`));
      expect(await xml.text()).toContain("AttachedDocument");
      const unsent = pendingInvoices(orgId)[10];
      if (!unsent) throw new Error("the seed has fewer than eleven pending invoices");
      const notYet = await failure(
        einvoicing.downloadAttachedDocument({ org_id: orgId, invoice_id: unsent.id }),
      );
      expect(notYet.code).toBe("not_accepted");

      const delivered = await einvoicing.deliver({
        org_id: orgId,
        invoice_id: first.id,
        to: "buyer@example.com",
      });
      expect(delivered).toMatchObject({ invoice_id: first.id, to: "buyer@example.com", status: "enviada" });
    }, 60_000);

    it("answers a retry under the same idempotency key with the first answer, without redoing it", async () => {
      const { einvoicing, orgId } = clientFor("operador");
      const invoice = pendingInvoices(orgId)[2];
      if (!invoice) throw new Error("the seed has fewer than three pending invoices");
      const key = `transmit-${crypto.randomUUID()}`;
      const once = await einvoicing.transmit(
        { org_id: orgId, invoice_ids: [invoice.id] },
        { idempotencyKey: key, withMeta: true },
      );
      const again = await einvoicing.transmit(
        { org_id: orgId, invoice_ids: [invoice.id] },
        { idempotencyKey: key, withMeta: true },
      );
      expect(once).toMatchObject({ replayed: false, idempotency_key: key });
      expect(again).toEqual({ ...once, replayed: true, request_id: expect.any(String) });
      expect(again.request_id).not.toBe(once.request_id);
      const conflict = await failure(
        einvoicing.transmit(
          { org_id: orgId, invoice_ids: [invoice.id], reissue: true },
          { idempotencyKey: key },
        ),
      );
      expect({ code: conflict.code, status: conflict.status }).toEqual({
        code: "idempotency_conflict",
        status: 409,
      });
    });

    it("retries a call whose answer was lost with the key it made, and gets the answer replayed", async () => {
      const keys: (string | null)[] = [];
      // the first request reaches the service and is done; its answer never comes back
      const losingFirstAnswer: typeof fetch = async (input, init) => {
        keys.push(new Headers(init?.headers).get("Idempotency-Key"));
        const response = await contractCheckedFetch(input, init);
        if (keys.length === 1) throw new TypeError("fetch failed: connection reset");
        return response;
      };
      const { einvoicing, orgId } = clientFor("operador", losingFirstAnswer);
      const invoice = pendingInvoices(orgId)[4];
      if (!invoice) throw new Error("the seed has fewer than five pending invoices");
      const { data, replayed, idempotency_key } = await einvoicing.transmit(
        { org_id: orgId, invoice_ids: [invoice.id] },
        { withMeta: true },
      );
      expect(keys).toEqual([idempotency_key, idempotency_key]);
      expect(replayed).toBe(true);
      expect(data.results).toMatchObject([{ invoice_id: invoice.id, status: "transmitida" }]);
    });

    it("issues, refreshes, downloads and reissues credit notes", async () => {
      const { einvoicing, orgId } = clientFor("operador");
      const invoice = pendingInvoices(orgId)[3];
      if (!invoice) throw new Error("the seed has fewer than four pending invoices");
      await einvoicing.transmit({ org_id: orgId, invoice_ids: [invoice.id] });

      const note = await einvoicing.creditNotes.create({
        org_id: orgId,
        invoice_id: invoice.id,
        concept_code: "2",
        reason: "Anulación de la factura",
      });
      expect(note).toMatchObject({ credit_note_id: expect.any(String), status: "emitida" });
      const refreshed = await einvoicing.creditNotes.refresh({
        org_id: orgId,
        credit_note_id: note.credit_note_id,
      });
      expect(refreshed).toMatchObject({ credit_note_id: note.credit_note_id, status: "emitida" });
      const { pdf } = await einvoicing.creditNotes.downloadRepresentation({
        org_id: orgId,
        credit_note_id: note.credit_note_id,
      });
      expect(new TextDecoder().decode(new Uint8Array(await pdf.arrayBuffer()).slice(0, 5))).toBe("%PDF-");
      const { xml } = await einvoicing.creditNotes.downloadAttachedDocument({
        org_id: orgId,
        credit_note_id: note.credit_note_id,
      });
      expect(await xml.text()).toContain("AttachedDocument");

      // the seed's credit note that ended in error is sent again, and accepted this time
      const rejected = server.get().run.credit_notes.find((n) => n.org_id === orgId && n.status === "error");
      if (!rejected) throw new Error("the seed has no credit note in error");
      const reissued = await einvoicing.creditNotes.reissue({ org_id: orgId, credit_note_id: rejected.id });
      expect(reissued).toMatchObject({ credit_note_id: rejected.id, status: "emitida" });
      // an accepted one cannot be
      const again = await failure(
        einvoicing.creditNotes.reissue({ org_id: orgId, credit_note_id: rejected.id }),
      );
      expect({ code: again.code, status: again.status }).toEqual({ code: "invalid_state", status: 409 });
    }, 60_000);

    it("tests and saves a provider key as an admin", async () => {
      const { einvoicing, orgId } = clientFor("admin");
      const local = server.get().run;
      const company = local.companies.find((c) => c.org_id === orgId);
      if (!company) throw new Error("the seed has no company");
      const credential = {
        org_id: orgId,
        company_id: company.id,
        service: "adapter-tax" as const,
        environment: "uat" as const,
        api_key: local.sandbox.api_key,
        url: local.sandbox.urls["adapter-tax"],
      };
      expect(await einvoicing.integrations.test(credential)).toMatchObject({ ok: true });
      const saved = await einvoicing.integrations.save(credential);
      expect(saved).toMatchObject({ company_id: company.id, api_key_hint: local.sandbox.api_key.slice(-4) });
      expect(JSON.stringify(saved)).not.toContain(local.sandbox.api_key);
    });

    it("throws one error class carrying code, status, details and request_id", async () => {
      const { einvoicing, orgId } = clientFor("operador");
      const invalid = await failure(einvoicing.refresh({ org_id: orgId, invoice_id: "not-a-uuid" }));
      expect(invalid).toMatchObject({
        name: "EinvoicingError",
        code: "validation_failed",
        status: 400,
        details: [{ field: "invoice_id", message: "must be a UUID" }],
        request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });

      const lector = clientFor("lector");
      const forbidden = await failure(
        lector.einvoicing.transmit({ org_id: lector.orgId, invoice_ids: [crypto.randomUUID()] }),
      );
      expect({ code: forbidden.code, status: forbidden.status }).toEqual({ code: "forbidden", status: 403 });

      const missing = await failure(
        einvoicing.downloadRepresentation({ org_id: orgId, invoice_id: crypto.randomUUID() }),
      );
      expect({ code: missing.code, status: missing.status }).toEqual({ code: "not_found", status: 404 });
    });

    it("reports a server that cannot be reached as network_error", async () => {
      const supabase = createClient("http://127.0.0.1:9", server.get().run.apikey, {
        accessToken: async () => "token",
      });
      const unreachable = await failure(
        createEinvoicingClient(supabase).transmit({ org_id: crypto.randomUUID(), invoice_ids: [] }),
      );
      expect({ code: unreachable.code, status: unreachable.status }).toEqual({
        code: "network_error",
        status: 0,
      });
    });
  },
);
