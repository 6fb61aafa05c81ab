/**
 * The Supabase Storage adapter against Storage's HTTP API at the network edge (msw): an upsert
 * of application/pdf with the service key, downloads, and a missing object as null.
 */
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { createSupabaseStore } from "../../shared/storage/supabase-store.ts";
import { useNetworkEdge } from "../support/msw.ts";

const URL_ = "https://ref.supabase.test";
const KEY = "sb_secret_storage_test";
const PATH = "11111111-1111-4111-8111-111111111111/invoices/abc/factura-1.pdf";
const server = useNetworkEdge();

describe("createSupabaseStore", () => {
  it("upserts the PDF into the private bucket with the service key", async () => {
    let seen: { auth: string | null; upsert: string | null; type: string | null; body: string } | undefined;
    server.use(
      http.post(`${URL_}/storage/v1/object/service-documentos/${PATH}`, async ({ request }) => {
        const form = request.headers.get("content-type")?.startsWith("multipart/")
          ? await request.formData()
          : undefined;
        const file = form ? [...form.values()].find((v) => typeof v !== "string") : undefined;
        seen = {
          auth: request.headers.get("authorization"),
          upsert: request.headers.get("x-upsert"),
          type: file && typeof file !== "string" ? file.type : request.headers.get("content-type"),
          body: file && typeof file !== "string" ? await file.text() : await request.text(),
        };
        return HttpResponse.json({ Key: `service-documentos/${PATH}` });
      }),
    );
    const store = createSupabaseStore({ url: URL_, serviceKey: KEY });
    await store.put(PATH, new TextEncoder().encode("%PDF-1.7 x"), "application/pdf");
    expect(seen).toEqual({
      auth: `Bearer ${KEY}`,
      upsert: "true",
      type: "application/pdf",
      body: "%PDF-1.7 x",
    });
  });

  it("downloads an object, and answers null for one that does not exist", async () => {
    server.use(
      http.get(`${URL_}/storage/v1/object/service-documentos/${PATH}`, () => new HttpResponse("%PDF-1.7 y")),
      http.get(`${URL_}/storage/v1/object/service-documentos/missing.pdf`, () =>
        HttpResponse.json(
          { statusCode: "404", error: "not_found", message: "Object not found" },
          { status: 400 },
        ),
      ),
    );
    const store = createSupabaseStore({ url: URL_, serviceKey: KEY });
    expect(new TextDecoder().decode((await store.get(PATH)) ?? undefined)).toBe("%PDF-1.7 y");
    expect(await store.get("missing.pdf")).toBeNull();
  });

  it("reports a Storage failure as the service being unavailable", async () => {
    server.use(
      http.post(`${URL_}/storage/v1/object/service-documentos/${PATH}`, () =>
        HttpResponse.json({ statusCode: "500", error: "internal", message: "boom" }, { status: 500 }),
      ),
    );
    const store = createSupabaseStore({ url: URL_, serviceKey: KEY });
    await expect(store.put(PATH, new Uint8Array([1]), "application/pdf")).rejects.toMatchObject({
      code: "service_unavailable",
    });
  });
});
